import Foundation

/// A TCP listener on 127.0.0.1 that never accepts: the kernel completes
/// each connection's handshake, and nothing is ever said on it.
final class SilentListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let made = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard made >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(made, $0, length) }
        }
        guard bound == 0, listen(made, 16) == 0 else {
            Glibc.close(made)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(made, $0, &length) }
        }
        descriptor = made
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { Glibc.close(descriptor) }
}
