import TabulaCore
import TabulaHTTP

/// `POST /v1/sessions`.
extension APIContext {
    func createSession(_ context: RouteContext, _ responder: Responder) {
        let token = SessionToken.make()
        store.createSession(token: token, initialState: catalogue.initialState) { [self] result in
            switch result {
            case .failure(let error):
                send(Problem.storeUnavailable(error).response(), context, responder)
            case .success:
                var writer = JSONWriter()
                writer.beginObject()
                writer.key("session"); writer.string(token)
                writer.endObject()
                send(JSONResponse.make(.created, writer.bytes), context, responder, token)
            }
        }
    }
}
