import ArgumentParser
import Logging

/// `--log-level`/`LOG_LEVEL` and `--log-format`/`LOG_FORMAT`, bootstrapped once per process.
struct LoggingOptions: ParsableArguments {
    enum Format: String, CaseIterable, ExpressibleByArgument { case text, json }

    @Option(help: "trace, debug, info, notice, warning, error or critical. (env: LOG_LEVEL, default: info)")
    var logLevel: Logger.Level?

    @Option(help: "text (readable lines) or json (one object per line). (env: LOG_FORMAT, default: text)")
    var logFormat: Format?

    /// Long-running `serve` logs to stdout; one-shot commands log to stderr so that stdout carries
    /// only their result (a new key, a list) for scripts to capture.
    func bootstrap(toStandardError: Bool = false) throws -> Logger {
        let level = try Setting.resolve(logLevel, env: "LOG_LEVEL", default: .info)
        let format = try Setting.resolve(logFormat, env: "LOG_FORMAT", default: .text)
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler =
                format == .json
                ? JSONLogHandler(label: label, toStandardError: toStandardError)
                : toStandardError
                    ? StreamLogHandler.standardError(label: label) : StreamLogHandler.standardOutput(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "device-registry")
    }
}

// Neither swift-log nor ArgumentParser can declare this conformance (they do not know each
// other), and a copy of Logger.Level's cases here would be a second list to keep in step.
// swift-format-ignore: AvoidRetroactiveConformances
extension Logger.Level: @retroactive ExpressibleByArgument {}
