import Testing
import TesseraCommandKit
import TesseraRender
import TesseraTestTraits

/// The JSON reader the command's snapshot and plan files go through, on
/// escapes a hostile file may hold.
@Suite("JSON reader", .cpuBound)
struct JSONParserTests {
    @Test("A high surrogate followed by an escape that is not a low surrogate reads as U+FFFD and that escape, without trapping")
    func unpairedHighSurrogate() throws {
        #expect(try JSON.parse(#"["\ud83d\u8e00"]"#) == .array([.string("\u{FFFD}\u{8E00}")]))
        #expect(try JSON.parse(#"["\ud83d\ud83d\ude00"]"#) == .array([.string("\u{FFFD}😀")]))
        #expect(try JSON.parse(#"["\ud83d\u0041"]"#) == .array([.string("\u{FFFD}A")]))
        #expect(try JSON.parse(#"["\ud83d\ude00", "\udc00", "\ud83dx"]"#) == .array([.string("😀"), .string("\u{FFFD}"), .string("\u{FFFD}x")]))
    }

    @Test("\\u takes four hexadecimal digits and no sign", arguments: [#""\u+041""#, #""\u-041""#, #""\u 041""#, #""\u04G1""#, #""\u041""#])
    func escapeDigits(text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSON.parse(text) }
    }
}
