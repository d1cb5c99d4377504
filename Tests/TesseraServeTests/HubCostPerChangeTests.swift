import Foundation
import Testing
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraLayout
import TesseraRender
import TesseraResults
import TesseraSQLite

/// What a change costs the hub: it reads the controller's results record by
/// record (O(log *n*) each), never copying a whole result into a snapshot
/// (O(*n*) for every report, whatever the change).
@Suite("Hub cost per change")
struct HubCostPerChangeTests {
    @Test("hello, viewport changes and edits through the protocol never make a snapshot of any result the hub sends from")
    func noSnapshotPerChange() async throws {
        let library = try HubLibrary(photos: 2_000, albums: 4)
        let hub = try ServeHub(configuration: library.configuration())
        // Clients with ids at the top, the middle and the bottom of the
        // list (one layout each), and one without ids.
        var clients: [HubTestClient] = []
        for (index, (layout, y)) in [(ServeLayoutKind.list, 0), (.flow, 20_000), (.column, 400_000)].enumerated() {
            let (id, outbox) = await hub.connect(canEdit: true)
            let client = HubTestClient(id: id, outbox: outbox, label: "client \(index)", layout: layout, viewport: Rect(x: 0, y: Double(y), width: 400, height: 600))
            await hub.receive(HubOracleTests.hello(client), from: id)
            try await client.drain()
            clients.append(client)
        }
        let (plainID, plainOutbox) = await hub.connect(canEdit: false)
        await hub.receive(#"{"type":"hello","layout":"list","viewport":[0,0,400,600]}"#, from: plainID)
        var plainMessages = 0
        let editor = clients[0]
        var results = [await hub.current]

        func check(_ what: String) async throws {
            for client in clients { try await client.drain() }
            while plainOutbox.count > 0, await plainOutbox.next() != nil { plainMessages += 1 }
            let fresh = try library.freshList()
            for client in clients {
                #expect(client.replica.sections == fresh, "\(what): \(client.label)'s replica")
                let problems = client.checkElements()
                #expect(problems.isEmpty, "\(what): \(client.label): \(problems.prefix(3))")
            }
            #expect(editor.errors.isEmpty, "\(what): \(editor.errors.map(\.compactText))")
            results.append(await hub.current)
        }

        // Renames the editor sees (a reload in its plan) and that no client
        // sees (an unchanged plan).
        let top = editor.replica.sections[0].ids
        let hidden = editor.replica.sections[1].ids[300]
        let edits = [
            "{\"type\":\"rename\",\"request\":1,\"id\":\"\(top[0])\",\"title\":\"Seen\"}",
            "{\"type\":\"rename\",\"request\":2,\"id\":\"\(hidden)\",\"title\":\"Unseen\"}",
            "{\"type\":\"rename\",\"request\":3,\"id\":\"\(top[1])\",\"title\":\"Seen again\"}",
            "{\"type\":\"move\",\"request\":4,\"id\":\"\(top[2])\",\"to\":0}",
            "{\"type\":\"add\",\"request\":5,\"section\":\"Alps\",\"title\":\"Added\"}",
            "{\"type\":\"delete\",\"request\":6,\"ids\":[\"\(top[3])\"]}",
        ]
        for (index, edit) in edits.enumerated() {
            await hub.receive(edit, from: editor.id)
            try await check("edit \(index + 1)")
            // A patch, not a fetch (which diffs snapshots by design).
            #expect(await hub.lastUpdateMethod == .incremental, "edit \(index + 1)")
        }
        #expect(editor.dones.count == edits.count && editor.plans == edits.count)
        #expect(plainMessages == 1 + edits.count)
        // Scrolling and a layout change read the current result too.
        await hub.receive(#"{"type":"viewport","viewport":[0,5000,400,600],"layout":"flow"}"#, from: editor.id)
        editor.layout = .flow
        try await check("viewport")

        #expect(results.count == edits.count + 2)
        for (index, result) in results.enumerated() {
            #expect(!result.hasMadeSnapshot, "result \(index) of \(results.count) was copied into a snapshot")
        }
        await hub.stop()
    }
}
