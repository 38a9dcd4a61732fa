import TabulaCore
import TabulaPlatform

/// What a reload of the definitions did.
public enum ReloadOutcome: Sendable, Equatable {
    /// A new catalogue is served: screens whose definition changed, added and removed.
    case reloaded(version: Int, changed: [String], added: [String], removed: [String])
    /// Every definition is the one served already; nothing changed.
    case unchanged(version: Int)
    /// Nothing was loaded: the catalogue of `version` keeps serving.
    case refused(CatalogueProblems, version: Int)
}

extension ReloadOutcome {
    /// The outcomes' labels in `tabula_definition_reloads_total`, each counted from 0.
    enum Kind: String, CaseIterable {
        case reloaded, unchanged, refused
    }

    var kind: Kind {
        switch self {
        case .reloaded: .reloaded
        case .unchanged: .unchanged
        case .refused: .refused
        }
    }
}

/// The served catalogue's version and, when the last reload was refused, why.
public struct CatalogueStatus: Sendable {
    public var version: Int
    public var problems: [CatalogueProblem]
}

extension APIContext {
    /// Serves `catalogue` from now on, a new version of every definition that changed:
    /// its definitions are kept in the store first (other instances and clients' later
    /// catch-up render with them), then it replaces the current catalogue whole, and open
    /// streams are brought to their screens by the new definitions. Refused, with nothing
    /// changed, when its initial state breaks the state limits or the store cannot keep it.
    func adopt(_ catalogue: Catalogue) -> ReloadOutcome {
        let old = catalogues.current
        let oldIDs = Dictionary(old.catalogue.screens.map { ($0.id, $0.definitionID) }, uniquingKeysWith: { first, _ in first })
        let newIDs = Dictionary(catalogue.screens.map { ($0.id, $0.definitionID) }, uniquingKeysWith: { first, _ in first })
        guard oldIDs != newIDs else { return .unchanged(version: old.version) }
        if let violation = stateLimits.violation(of: catalogue.initialState) {
            return .refused(
                CatalogueProblems([.refused("the screens' initial state breaks the state limits (\(violation)); raise --max-state-bytes or --max-list-length")]
                ),
                version: old.version)
        }
        let removed: [String]
        do throws(StoreError) {
            removed = try store.keepDefinitions(catalogue.screens.map(KeptDefinition.init))
        } catch {
            return .refused(CatalogueProblems([.refused("the \(store.name) store cannot keep the definitions: \(error)")]), version: old.version)
        }
        for definition in old.catalogue.screens { definitions.remember(definition) }
        // After the definitions it replaces: with --keep-definitions 1, those are gone too.
        definitions.forget(removed)
        let new = ServedCatalogue(catalogue, version: old.version + 1, threadCacheBounds: threadCacheBounds, limitCounts: cacheLimitCounts)
        // The streams first: from the moment a stream can be opened with the new
        // definitions, the hub knows of them, and offers no stream the old ones' screen.
        streams.reloaded(catalogue)
        catalogues.replace(with: new)
        return .reloaded(
            version: new.version,
            changed: newIDs.keys.filter { oldIDs[$0] != nil && oldIDs[$0] != newIDs[$0] }.sorted(),
            added: newIDs.keys.filter { oldIDs[$0] == nil }.sorted(),
            removed: oldIDs.keys.filter { newIDs[$0] == nil }.sorted())
    }
}
