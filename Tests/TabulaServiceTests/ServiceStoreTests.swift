import TabulaCore
import TabulaPlatform
import TabulaSamples
import TabulaTestSupport
import Testing

@testable import TabulaService

/// Service code never runs on a store's thread: what SQLite's writer answers continues on
/// the service's pool, and what a store answers within the call stays on the caller.
@Suite struct ServiceStoreTests {
    @Test(arguments: [StoreKind.memory, .sqlite, .postgres])
    func completionsContinueOnTheServicesThreads(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let catalogue = try APITestServer.fixtures()
        let inner = try factory.open(catalogue)
        defer { inner.close() }
        let pool = WorkerPool(threads: 2)
        defer { pool.close() }
        let store = ServiceStore.serving(inner, on: pool)
        let token = SessionToken.make()
        let created = Locked<(onPool: Bool, inside: Bool)?>(nil)
        let call = CallTracker()
        store.createSession(NewSession(token: token, id: SessionID.make(), subject: nil, state: catalogue.initialState)) { _ in
            created.withLock { $0 = (pool.runsCurrentThread, call.isInsideCall) }
        }
        call.callReturned()
        _ = eventually(within: 10) { created.withLock { $0 } != nil }
        let outcome = try #require(created.withLock { $0 })
        switch kind {
        case .memory:
            // Answered within the call: it goes on there, on the caller's thread.
            #expect(outcome.inside && !outcome.onPool)
        case .sqlite, .postgres:
            // Answered after the writer's commit (SQLite hands it to the pool itself) or on
            // PostgreSQL's pool (the wrapper hands it over): it goes on on the service's.
            #expect(outcome.onPool && !outcome.inside)
            #expect((store is ServiceStore) == (kind == .postgres))
        }
        let read = try wait { store.read(session: .token(token), SessionRead(), completion: $0) }
        #expect(read?.current.revision == 0)
    }

    @Test func aPoolRunsJobsInTheOrderTheyComeAndInlineOnceClosed() {
        let pool = WorkerPool(threads: 1)
        let order = Locked<[Int]>([])
        for index in 0..<100 { pool.run { order.withLock { $0.append(index) } } }
        pool.close()
        #expect(order.withLock { $0 } == Array(0..<100))
        let ranInline = Locked(false)
        pool.run { ranInline.withLock { $0 = !pool.runsCurrentThread } }
        #expect(ranInline.withLock { $0 })
    }
}
