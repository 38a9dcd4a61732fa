import Logging
import TabulaCore
import TabulaICU
import TabulaPlatform

/// The definitions a client's copy of a screen can have been rendered with: the
/// catalogue's own, and the earlier or other versions that this or another instance served,
/// which the store keeps. A definition read from the store is remembered: an id names one
/// document forever.
final class DefinitionArchive: Sendable {
    /// Which definition rendered a client's copy, once looked up.
    enum Copy: Sendable {
        /// The catalogue's current definition of the screen (or no `definition` was sent).
        case current
        /// Another version of the screen's definition.
        case earlier(ScreenDefinition)
        /// No definition of the screen has this id here (never served, or no longer kept).
        case unknown(String)

        /// The definition that rendered the client's copy of `screen` (the current one);
        /// 409 `unknown-definition` when it is not known.
        func definition(current screen: ScreenDefinition) throws(Problem) -> ScreenDefinition {
            switch self {
            case .current: screen
            case .earlier(let definition): definition
            case .unknown(let id): throw Problem.unknownDefinition(id, of: screen)
            }
        }
    }

    private let store: any SessionStore
    private let logger: Logger
    private let remembered = Locked<[String: ScreenDefinition]>([:])
    /// Earlier versions are rare (clients that showed a screen across a deployment), so a
    /// few are remembered; more are read again.
    private static let maxRemembered = 256

    /// Keeps the catalogue's definitions in the store (blocking, before serving), so that
    /// other instances and later runs can render what this one serves.
    init(catalogue: Catalogue, store: any SessionStore, logger: Logger) throws(StoreError) {
        self.store = store
        self.logger = logger
        try store.keepDefinitions(catalogue.screens.map(KeptDefinition.init))
    }

    /// The definition with `id` of `screen` (the catalogue's current definition) when it is
    /// known without asking the store, as it is for almost every request; `nil` when
    /// ``lookUp(_:of:completion:)`` must ask. A `nil` id means that the client did not say:
    /// its copy is taken to be current.
    func copy(_ id: String?, of screen: ScreenDefinition) -> Copy? {
        guard let id, id != screen.definitionID else { return .current }
        guard DefinitionDocument.isWellFormedID(id) else { return .unknown(id) }
        guard let known = remembered.withLock({ $0[id] }) else { return nil }
        return known.id == screen.id ? .earlier(known) : .unknown(id)
    }

    /// Asks the store for the definition with `id` of `screen`, which ``copy(_:of:)`` does
    /// not know.
    func lookUp(_ id: String, of screen: ScreenDefinition, completion: @escaping @Sendable (Result<Copy, StoreError>) -> Void) {
        store.keptDefinition(id: id) { [self] result in
            completion(
                result.map { kept in
                    guard let kept, kept.screen == screen.id, let definition = read(kept) else { return .unknown(id) }
                    remember(definition)
                    return .earlier(definition)
                })
        }
    }

    /// The kept document as a definition, if this Tabula reads it as the one that kept it
    /// did: the same id (a newer Tabula's documents may not read, or not alike).
    private func read(_ kept: KeptDefinition) -> ScreenDefinition? {
        do {
            let definition = try ScreenDefinition.reading(document: kept.document, rules: ICULocaleRules())
            guard definition.definitionID == kept.id, definition.id == kept.screen else {
                logger.warning(
                    "definition \(kept.id) of screen \(kept.screen) reads as \(definition.definitionID) here (kept by another version of Tabula?); clients showing it will fetch the screen again"
                )
                return nil
            }
            return definition
        } catch {
            logger.warning("definition \(kept.id) of screen \(kept.screen) cannot be read here (\(error)); clients showing it will fetch the screen again")
            return nil
        }
    }

    /// Forgets the definitions with these ids, which the store no longer keeps: a client
    /// showing one gets 409 here as on a restarted instance.
    func forget(_ ids: [String]) {
        guard !ids.isEmpty else { return }
        remembered.withLock { remembered in
            for id in ids { remembered[id] = nil }
        }
    }

    /// Keeps `definition` at hand: a reload remembers the definitions it replaces, which
    /// clients still show.
    func remember(_ definition: ScreenDefinition) {
        remembered.withLock { remembered in
            if remembered.count >= Self.maxRemembered, let any = remembered.keys.first { remembered[any] = nil }
            remembered[definition.definitionID] = definition
        }
    }
}
