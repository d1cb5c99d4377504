import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import TesseraResultsCore

/// The floor of `tessera bench serve --floor`: a WebSocket server on
/// SwiftNIO that speaks just enough of the live list's protocol for the load
/// generator and computes nothing. A `hello` gets a snapshot with no
/// elements, a `viewport` an `elements` message with none, and each edit
/// (any message with a `request`) becomes change `seq`: one plan frame of a
/// fixed size, encoded once and written to every client that said `hello`,
/// one write task per event loop (as the live list writes), then `done` to
/// the editor.
///
/// What it costs per change is what any server pays to broadcast the same
/// frames to the same clients (the sockets, the event loops, the
/// WebSocket framing): the load generator runs the same load against it and
/// against `tessera serve`, and reports the server's CPU per change and the
/// latency as ratios to it.
package final class LoadFloorServer: @unchecked Sendable {
    /// The clients that said `hello`, by event loop, and the changes so far.
    private struct State {
        var seq = 0
        var clients: [ObjectIdentifier: (loop: any EventLoop, channels: [ObjectIdentifier: any Channel])] = [:]
    }

    private let state = PThreadMutex(State())
    /// The plan frame's bytes beyond its head, written as a JSON string.
    private let padding: String
    /// The content height snapshots and elements messages say.
    private let contentHeight: Double

    /// A floor whose plans are about `planBytes` long, over a list
    /// `contentHeight` points tall.
    package init(planBytes: Int, contentHeight: Double) {
        padding = String(repeating: "x", count: max(0, planBytes - 64))
        self.contentHeight = contentHeight
    }

    /// Binds 127.0.0.1:`port` (0: any free port), prints
    /// `address: http://127.0.0.1:PORT/` as `tessera serve` does, and serves
    /// until the process ends.
    ///
    /// - Throws: the bind's error.
    package func run(port: Int) throws -> Never {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: 1 << 20,
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { [self] channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(LoadFloorHandler(floor: self))
                }
            }
        )
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 4_096)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                }
            }
        let channel = try bootstrap.bind(host: "127.0.0.1", port: port).wait()
        FileHandle.standardOutput.write(Data("address: http://127.0.0.1:\(channel.localAddress?.port ?? port)/\n".utf8))
        while true { pause() }
    }

    /// A text frame of `text`.
    static func frame(_ text: String, allocator: ByteBufferAllocator) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, data: allocator.buffer(string: text))
    }

    /// Answers one message of `channel`.
    func received(_ message: ByteBuffer, on channel: any Channel) {
        let (type, request) = message.withUnsafeReadableBytes { bytes in
            (LoadMessageHead.string(after: LoadMessageHead.typeKey, in: bytes), LoadMessageHead.number(after: LoadMessageHead.requestKey, in: bytes))
        }
        let allocator = channel.allocator
        switch type {
        case "hello":
            let seq = state.withLock { state in
                let loop = ObjectIdentifier(channel.eventLoop)
                state.clients[loop, default: (channel.eventLoop, [:])].channels[ObjectIdentifier(channel)] = channel
                return state.seq
            }
            // Ids for a writer, an edit allowed for any client.
            let text = #"{"type":"snapshot","seq":\#(seq),"contentSize":[800,\#(contentHeight)],"viewport":[0,0,800,800],"sections":[],"elements":[],"ids":[["1","2","3"]],"editable":true,"edits":["rename"]}"#
            channel.writeAndFlush(Self.frame(text, allocator: allocator), promise: nil)
        case "viewport":
            let seq = state.withLock { $0.seq }
            let text = #"{"type":"elements","seq":\#(seq),"contentSize":[800,\#(contentHeight)],"viewport":[0,0,800,800],"elements":[]}"#
            channel.writeAndFlush(Self.frame(text, allocator: allocator), promise: nil)
        default:
            guard let request else { return }
            broadcast(editor: channel, request: request)
        }
    }

    /// Makes the next change: its plan, encoded once, written to every
    /// client by one task per event loop, then `done` to the editor.
    private func broadcast(editor: any Channel, request: Int) {
        let (seq, loops) = state.withLock { state in
            state.seq += 1
            return (state.seq, Array(state.clients.values))
        }
        let plan = #"{"type":"plan","fromSeq":\#(seq - 1),"seq":\#(seq),"animated":true,"floor":"\#(padding)"}"#
        let buffer = editor.allocator.buffer(string: plan)
        for (loop, channels) in loops {
            let targets = Array(channels.values)
            loop.execute {
                for channel in targets where channel.isActive {
                    channel.write(WebSocketFrame(fin: true, opcode: .text, data: buffer), promise: nil)
                }
                for channel in targets { channel.flush() }
            }
        }
        let done = #"{"type":"done","request":\#(request),"seq":\#(seq)}"#
        editor.writeAndFlush(Self.frame(done, allocator: editor.allocator), promise: nil)
    }

    /// Forgets a client whose channel closed.
    func closed(_ channel: any Channel) {
        state.withLock { state in
            _ = state.clients[ObjectIdentifier(channel.eventLoop)]?.channels.removeValue(forKey: ObjectIdentifier(channel))
        }
    }
}

/// One client's WebSocket frames to the floor.
final class LoadFloorHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let floor: LoadFloorServer

    init(floor: LoadFloorServer) {
        self.floor = floor
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            floor.received(frame.unmaskedData, on: context.channel)
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            context.close(promise: nil)
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        floor.closed(context.channel)
        context.fireChannelInactive()
    }
}
