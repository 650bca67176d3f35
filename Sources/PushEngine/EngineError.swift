/// The engine's own refusals, in its terms; the API's error table gives each its answer.
package enum EngineError: Error, Equatable {
    /// Call event `id` was posted before with another body: a client bug (409 naming `id`).
    case callEventConflict(id: String)
    /// `queued` devices wait in push jobs and at most `limit` may: retry later (503).
    case jobQueueFull(queued: Int, limit: Int)
}
