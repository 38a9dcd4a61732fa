import TabulaCore
import TabulaPlatform

/// Reloads of the definitions while serving (SIGHUP, `--watch`).
extension TabulaService {
    /// Reads the definitions of `directory` again and serves them, if every one of them is
    /// valid; otherwise the current catalogue keeps serving, and the problems are logged
    /// (with file, line, column and JSON path) and kept for the preview page. Changed
    /// screens reach open streams as change sets. One reload runs at a time.
    @discardableResult
    public func reload(from directory: DefinitionDirectory) -> ReloadOutcome {
        reloadProblems.withLock { lastProblems in
            let outcome: ReloadOutcome
            switch directory.load() {
            case .success(let catalogue):
                outcome = api.adopt(catalogue)
                if case .reloaded = outcome {
                    for warning in catalogue.warnings { logger.warning("\(warning.description)") }
                }
            case .failure(let problems): outcome = .refused(problems, version: api.served.version)
            }
            switch outcome {
            case .reloaded(let version, let changed, let added, let removed):
                lastProblems = []
                let screens = [("changed", changed), ("added", added), ("removed", removed)].filter { !$0.1.isEmpty }
                logger.notice(
                    "reloaded the definitions of \(directory.path): version \(version); \(screens.map { "\($0.0) \($0.1.joined(separator: ", "))" }.joined(separator: "; "))"
                )
            case .unchanged(let version):
                lastProblems = []
                logger.info("the definitions of \(directory.path) are unchanged: still version \(version)")
            case .refused(let problems, let version):
                lastProblems = problems.problems
                logger.error(
                    "the definitions of \(directory.path) were not reloaded (\(problems.problems.count) problem\(problems.problems.count == 1 ? "" : "s")): version \(version) keeps serving"
                )
                for problem in problems.problems { logger.error("\(problem.description)") }
            }
            metrics.counter("tabula_definition_reloads_total", ["outcome": outcome.kind.rawValue]).increment()
            return outcome
        }
    }

    /// The served catalogue's version and the last refused reload's problems.
    public var definitionStatus: CatalogueStatus {
        CatalogueStatus(version: api.served.version, problems: reloadProblems.withLock { $0 })
    }
}
