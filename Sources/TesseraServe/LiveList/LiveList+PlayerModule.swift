import HTTPTypes
import Hummingbird
import NIOCore
import TesseraLiveHub
import TesseraLiveProtocol

extension LiveList {
    /// The player module's response (`tessera-live.js`, see
    /// <doc:WritingYourOwnFrontEnd>): JavaScript, not cached, never read as
    /// another type.
    static func playerModule() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/javascript; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: LivePage.playerModule)))
    }
}
