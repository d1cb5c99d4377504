#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraCommandKit
import TesseraDiff
import TesseraView
import TesseraRender

/// Snapshot and plan JSON as the `tessera` command reads them, from
/// arbitrary bytes.
///
/// Oracles: nothing traps; text the parser accepts prints (compactly) to
/// text it parses back to the same value; a snapshot document that loads
/// holds no repeated id (the diff accepts it against itself with no
/// changes); a plan that decodes encodes and decodes back to itself.
public enum DocumentFuzzCheck {
    public static func problems(_ input: inout FuzzInput) -> [String] {
        var bytes: [UInt8] = []
        while !input.isAtEnd { bytes.append(input.byte()) }
        let text = String(decoding: bytes, as: UTF8.self)
        let json: JSON
        do {
            json = try JSON.parse(text)
        } catch {
            return "\(error)".isEmpty ? ["an empty syntax error for \(text.debugDescription)"] : []
        }
        var problems: [String] = []
        let printed = json.compactText
        if (try? JSON.parse(printed)) != json {
            problems.append("\(text.debugDescription) parses, prints as \(printed.debugDescription), which parses to something else")
        }
        if let snapshot = try? SnapshotDocument.decode(json, name: "input") {
            do {
                let changes = try diff(from: snapshot, to: snapshot)
                if !changes.isEmpty { problems.append("\(printed): a snapshot diffed with itself gives \(changes)") }
            } catch {
                problems.append("\(printed): a snapshot that loads is refused by the diff: \(error)")
            }
        }
        if let plan = try? JSONDecoder().decode(AnimationPlan.self, from: Data(printed.utf8)) {
            do {
                let again = try JSONDecoder().decode(AnimationPlan.self, from: JSONEncoder().encode(plan))
                if again != plan { problems.append("\(printed): a plan does not survive encoding") }
            } catch {
                problems.append("\(printed): a decoded plan does not encode and decode: \(error)")
            }
        }
        return problems
    }
}
