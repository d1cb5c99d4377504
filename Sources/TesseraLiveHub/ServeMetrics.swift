import TesseraLiveProtocol

/// What a live list has done since it started, for its metrics endpoint
/// (``LiveList/metricsText()``), in Prometheus' text format.
package struct ServeMetrics: Sendable {
    /// Clients that connected.
    package var connections = 0
    /// Changes: reports of the list sent as the next `seq`.
    package var changes = 0
    /// `plan` messages queued, merged ones included.
    package var plansSent = 0
    /// Of ``plansSent``, the ones for a change the client's viewport does
    /// not show (`unchanged`).
    package var unchangedPlans = 0
    /// Merged plans: one plan from a client's state to the current one,
    /// sent once a client that fell behind drained its outbox.
    package var mergedPlans = 0
    /// Plans that answered a `hello` naming a state the hub kept.
    package var resumedPlans = 0
    /// Times a client fell behind (its outbox full when a change came).
    package var clientsBehind = 0
    /// Clients closed because replies piled up past their outbox's bound.
    package var clientsDropped = 0
    /// Edits written (answered `done`).
    package var editsDone = 0
    /// Edits refused or failed (answered `error`), nothing written.
    package var editsRefused = 0
    /// The time from taking a change to having its plan queued for every
    /// client that is up to date.
    package var changeSeconds = ServeHistogram(bounds: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5])

    /// Creates metrics at zero.
    package init() {}

    /// The metrics in Prometheus' text exposition format (version 0.0.4),
    /// with the clients connected now and the rows of the list.
    ///
    /// - Complexity: O(*b*) for *b* histogram buckets.
    package func prometheusText(clients: Int, rows: Int) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            out += "# HELP tessera_live_\(name) \(help)\n# TYPE tessera_live_\(name) \(type)\n"
            for sample in samples { out += "tessera_live_\(name)\(sample.labels) \(sample.value)\n" }
        }
        metric("clients", "gauge", "Clients connected now.", [("", String(clients))])
        metric("rows", "gauge", "Rows in the list now.", [("", String(rows))])
        metric("connections_total", "counter", "Clients that connected.", [("", String(connections))])
        metric("changes_total", "counter", "Changes of the list sent to the clients.", [("", String(changes))])
        metric("plans_sent_total", "counter", "Plan messages queued for clients, merged ones included.", [
            ("{kind=\"animated\"}", String(plansSent - unchangedPlans)), ("{kind=\"unchanged\"}", String(unchangedPlans)),
        ])
        metric("merged_plans_total", "counter", "Plans from a state a client fell behind at to the current one.", [("", String(mergedPlans))])
        metric("resumed_plans_total", "counter", "Plans from a state a reconnecting client named to the current one.", [("", String(resumedPlans))])
        metric("clients_behind_total", "counter", "Times a client's outbox was full when a change came.", [("", String(clientsBehind))])
        metric("clients_dropped_total", "counter", "Clients closed because their replies piled up past the outbox's bound.", [("", String(clientsDropped))])
        metric("edits_total", "counter", "Edits from clients, by outcome.", [
            ("{outcome=\"done\"}", String(editsDone)), ("{outcome=\"refused\"}", String(editsRefused)),
        ])
        let histogram = changeSeconds
        var buckets: [(labels: String, value: String)] = []
        var cumulative = 0
        for (bound, count) in zip(histogram.bounds, histogram.counts) {
            cumulative += count
            buckets.append(("{le=\"\(bound)\"}", String(cumulative)))
        }
        buckets.append(("{le=\"+Inf\"}", String(histogram.count)))
        out += "# HELP tessera_live_change_seconds Time from taking a change to its plan queued for every up-to-date client.\n"
        out += "# TYPE tessera_live_change_seconds histogram\n"
        for bucket in buckets { out += "tessera_live_change_seconds_bucket\(bucket.labels) \(bucket.value)\n" }
        out += "tessera_live_change_seconds_sum \(histogram.sum)\n"
        out += "tessera_live_change_seconds_count \(histogram.count)\n"
        return out
    }
}

/// A histogram of durations in seconds: a count per bucket (each up to
/// its bound, past the one before), their sum and count.
package struct ServeHistogram: Sendable {
    /// The buckets' upper bounds, ascending.
    package let bounds: [Double]
    /// The observations in each bucket (not cumulative); the ones over the
    /// last bound are in ``count`` only.
    package private(set) var counts: [Int]
    /// The sum of the observations.
    package private(set) var sum = 0.0
    /// The number of observations.
    package private(set) var count = 0

    /// Creates an empty histogram with these bucket bounds.
    package init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count)
    }

    /// Adds one observation.
    ///
    /// - Complexity: O(log *b*) for *b* buckets.
    package mutating func observe(_ seconds: Double) {
        var low = 0
        var high = bounds.count
        while low < high {
            let mid = (low + high) / 2
            if bounds[mid] < seconds { low = mid + 1 } else { high = mid }
        }
        if low < counts.count { counts[low] += 1 }
        sum += seconds
        count += 1
    }

    /// Adds the time from `start` to now.
    package mutating func observe(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        observe(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}
