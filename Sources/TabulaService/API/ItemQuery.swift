import TabulaCore
import TabulaHTTP

/// The `item` query parameter of a screen's routes: which item an item screen shows.
extension APIContext {
    static let maxItemIDLength = Record.maxIDBytes

    /// The item a request names for `definition`: required on an item screen (its
    /// existence is checked once the session's state is read, ``requireItem(_:_:in:)``),
    /// refused on any other screen.
    static func itemQuery(_ request: Request, for definition: ScreenDefinition) throws(Problem) -> String? {
        let value = try queryParameter("item", of: request)
        guard let list = definition.item else {
            guard value == .absent else {
                throw Problem.invalidQuery(
                    "?item= names the item an item screen shows, and \"\(definition.id)\" is not one (it declares no \"item\"); remove it")
            }
            return nil
        }
        switch value {
        case .present(let id?) where !id.isEmpty && id.utf8.count <= maxItemIDLength:
            return id
        case .present(let id?) where !id.isEmpty:
            // Past the length an item query may have: refused as an item the list lacks, named.
            throw Problem.unknownItem(screen: definition.id, list: list, item: id)
        case .absent, .present:
            throw Problem.unknownItem(screen: definition.id, list: list, item: nil)
        case .malformed:
            throw Problem.invalidQuery("item must be an item id, percent-encoded")
        }
    }

    /// Refuses an item the screen's list does not hold at `state` (on an item screen).
    static func requireItem(_ item: String?, _ definition: ScreenDefinition, in state: SessionState) throws(Problem) {
        guard let list = definition.item else { return }
        guard definition.item(item, in: definition.conformed(state)) != nil else {
            throw Problem.unknownItem(screen: definition.id, list: list, item: item)
        }
    }
}

extension Problem {
    /// An item screen's route without `?item=`, or with an id its list does not hold.
    static func unknownItem(screen: String, list: String, item: String?) -> Problem {
        let detail =
            if let item {
                "the screen \"\(screen)\" shows an item of \"\(list)\", which holds no item \"\(item.clippedForDetail)\" in this session (it was removed, or never added); go back to the screen that listed it"
            } else {
                "the screen \"\(screen)\" shows one item of \"\(list)\": name it with ?item=ID, as a navigate effect's \"item\" does"
            }
        return Problem(slug: "unknown-item", title: "Unknown Item", status: .notFound, detail: detail)
    }
}
