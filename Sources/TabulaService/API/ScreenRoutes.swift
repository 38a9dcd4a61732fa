import HTTPTypes
import TabulaCore
import TabulaHTTP
import TabulaPlatform

/// `GET /v1/screens` and `GET /v1/screens/{id}/changes?since=N` (the screen's own `GET` is
/// in ScreenGet.swift).
extension APIContext {
    func listScreens(_ context: RouteContext, _ responder: Responder) {
        guard let list = served.screenList else {
            return send(JSONResponse.make(.internalServerError, []), context, responder)
        }
        send(Response(list), context, responder)
    }

    func getChanges(_ context: RouteContext, _ responder: Responder) {
        let served = self.served
        let definition: ScreenDefinition
        let token: String?
        let since: Int
        let copyDefinition: String?
        do throws(Problem) {
            definition = try served.definition(context.parameters["id"] ?? "")
            since = try Self.since(context.request)
            copyDefinition = try Self.definitionQuery(context.request)
            token = try sessionToken(context.request)
        } catch {
            return send(error.response(), context, responder)
        }
        if let copy = definitions.copy(copyDefinition, of: definition) {
            return sendChanges(definition, of: served, since: since, from: copy, token: token, context, responder)
        }
        definitions.lookUp(copyDefinition ?? "", of: definition) { [self] copy in
            switch copy {
            case .failure(let error): send(Problem.store(error).response(), context, responder, token)
            case .success(let copy): sendChanges(definition, of: served, since: since, from: copy, token: token, context, responder)
            }
        }
    }

    /// The changes from the client's copy (`copy` at revision `since`) to the current screen.
    private func sendChanges(
        _ definition: ScreenDefinition, of served: ServedCatalogue, since: Int, from copy: DefinitionArchive.Copy, token: String?,
        _ context: RouteContext, _ responder: Responder
    ) {
        guard let token else {
            let initial = served.catalogue.initialState
            guard since == 0 else {
                return send(Problem.futureRevision(since, current: 0).response(), context, responder)
            }
            do throws(Problem) {
                let changes = diff(old: render(try copy.definition(current: definition), initial), new: served.defaultScreen(definition).screen)
                return send(JSONResponse.make(.ok, AnswerBody.encode(definition, from: since, to: 0, changes: changes)), context, responder)
            } catch {
                return send(error.response(), context, responder)
            }
        }
        readSession(.token(token), SessionRead(revision: since), onProblem: { [self] in send($0.response(), context, responder, token) }) { [self] snapshot in
            let current = snapshot.current
            switch snapshot.past {
            case .future(let revision):
                send(Problem.futureRevision(since, current: revision).response(), context, responder, token)
            case .tooOld(let oldest):
                send(Problem.staleRevision(since, oldestKept: oldest, current: current.revision).response(), context, responder, token)
            case .found(let old):
                do throws(Problem) {
                    let newScreen = cache.renderedScreen(session: SessionKey(token), definition, current).screen
                    let changes = diff(old: render(try copy.definition(current: definition), old), new: newScreen)
                    send(JSONResponse.make(.ok, AnswerBody.encode(definition, from: since, to: current.revision, changes: changes)), context, responder, token)
                } catch {
                    send(error.response(), context, responder, token)
                }
            }
        }
    }

    /// `definition`: optional, the id of the definition that rendered the client's copy.
    static func definitionQuery(_ request: Request) throws(Problem) -> String? {
        switch request.queryValue("definition") {
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
        switch request.queryValue("since") {
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

    /// Sends a response labelled with the route and, when known, a short session prefix.
    func send(_ response: Response, _ context: RouteContext, _ responder: Responder, _ token: String? = nil) {
        var labelled = response
        labelled.route = context.pattern
        // Only the prefix the access log shows, as on the quick path (a small string).
        labelled.logContext = token.map(SessionToken.logPrefix)
        access.send(labelled, through: responder)
    }
}
