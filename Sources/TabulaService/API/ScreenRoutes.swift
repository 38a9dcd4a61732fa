import HTTPTypes
import TabulaCore
import TabulaHTTP
import TabulaPlatform

/// `GET /v1/screens` and `GET /v1/screens/{id}/changes?since=N` (the screen's own `GET` is
/// in ScreenGet.swift).
extension APIContext {
    func listScreens(_ context: RouteContext) throws(Problem) -> RouteAnswer {
        .now(served.screenListResponse)
    }

    func getChanges(_ context: RouteContext) throws(Problem) -> RouteAnswer {
        let served = self.served
        let definition = try served.definition(context.parameters["id"] ?? "")
        let item = try Self.itemQuery(context.request, for: definition)
        let since = try Self.since(context.request)
        let copyDefinition = try Self.definitionQuery(context.request)
        let token = try sessionToken(context.request)
        return .later(session: token) { [self] reply in
            if let copy = definitions.copy(copyDefinition, of: definition) {
                return answerChanges(definition, item: item, of: served, since: since, from: copy, token: token, reply)
            }
            definitions.lookUp(copyDefinition ?? "", of: definition) { [self] copy in
                switch copy {
                case .failure(let error): reply.fail(.store(error))
                case .success(let copy): answerChanges(definition, item: item, of: served, since: since, from: copy, token: token, reply)
                }
            }
        }
    }

    /// The changes from the client's copy (`copy` at revision `since`, showing `item` on an
    /// item screen) to the current screen.
    private func answerChanges(
        _ definition: ScreenDefinition, item: String?, of served: ServedCatalogue, since: Int, from copy: DefinitionArchive.Copy,
        token: String?, _ reply: Reply
    ) {
        guard let token else {
            let initial = served.catalogue.initialState
            guard since == 0 else { return reply.fail(.futureRevision(since, current: 0)) }
            return reply(
                Result { () throws(Problem) in
                    try Self.requireItem(item, definition, in: initial)
                    let old = render(try copy.definition(current: definition), initial, item: item)
                    let changes = diff(old: old, new: served.defaultScreen(definition, item: item).screen)
                    return JSONResponse.make(.ok, AnswerBody.encode(definition, item: item, from: since, to: 0, changes: changes))
                })
        }
        readSession(.token(token), SessionRead(revision: since), onProblem: reply.fail) { [self] snapshot in
            let current = snapshot.current
            /// The screen the changes lead to, which a catch-up from too far back gets whole.
            func currentScreen() throws(Problem) -> Screen {
                try Self.requireItem(item, definition, in: current)
                return cache.renderedScreen(session: SessionKey(token), definition, current, item: item).screen
            }
            switch snapshot.past {
            case .future(let revision):
                reply.fail(.futureRevision(since, current: revision))
            case .tooOld(let oldest):
                // The problem carries the whole screen, so that the client needs no second request.
                do throws(Problem) {
                    reply.fail(.staleRevision(since, oldestKept: oldest, current: current.revision, currentScreen: try currentScreen()))
                } catch {
                    reply.fail(error)
                }
            case .found(let old):
                reply(
                    Result { () throws(Problem) in
                        let newScreen = try currentScreen()
                        let changes = diff(old: render(try copy.definition(current: definition), old, item: item), new: newScreen)
                        return JSONResponse.make(
                            .ok, AnswerBody.encode(definition, item: item, from: since, to: current.revision, changes: changes))
                    })
            }
        }
    }

    /// `definition`: optional, the id of the definition that rendered the client's copy.
    static func definitionQuery(_ request: Request) throws(Problem) -> String? {
        switch try queryParameter("definition", of: request) {
        case .absent:
            return nil
        case .present(let text?) where !text.isEmpty && text.utf8.count <= EventRequest.maxDefinitionLength:
            return text
        case .present, .malformed:
            throw Problem.invalidQuery("definition must be the \"definition\" of the screen the client shows")
        }
    }

    /// A query value of decimal digits only (no sign, no spaces), if it fits an `Int`.
    static func wholeNumber(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }

    /// `since`: required, a whole number of at least 0.
    static func since(_ request: Request) throws(Problem) -> Int {
        switch try queryParameter("since", of: request) {
        case .absent:
            throw Problem.invalidQuery("add ?since=N, the revision the client shows (0 for a fresh client)")
        case .malformed, .present(nil):
            throw Problem.invalidQuery("since must be a whole number of at least 0")
        case .present(let text?):
            guard let value = wholeNumber(text) else {
                throw Problem.invalidQuery("since must be a whole number of at least 0, not \"\(text.prefix(40))\"")
            }
            return value
        }
    }
}
