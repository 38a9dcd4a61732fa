import TabulaTestSupport
import Testing

/// `tabula_events_total` and `tabula_change_set_items` at `/metrics`, on a live server.
@Suite struct EventMetricsTests {
    @Test func eventsAreCountedByOutcomeAndChangeSetsBySize() throws {
        let api = try APITestServer()
        let session = try api.newSession()
        let switchOn = #"{"row":"bluetooth","isOn":true,"eventId":"first"}"#
        #expect(try api.send("POST", "/v1/screens/settings/switch", session: session, json: switchOn).status == 200)  // changed: 1 row
        #expect(try api.send("POST", "/v1/screens/settings/switch", session: session, json: switchOn).status == 200)  // replayed
        #expect(try api.send("POST", "/v1/screens/settings/switch", session: session, json: #"{"row":"bluetooth","isOn":true}"#).status == 200)  // unchanged
        #expect(try api.send("POST", "/v1/screens/settings/switch", session: session, json: #"{"row":"nope","isOn":true}"#).status == 404)  // rejected
        let metrics = try api.send("GET", "/metrics").bodyText
        for line in [
            #"tabula_events_total{kind="switch",outcome="changed"} 1"#,
            #"tabula_events_total{kind="switch",outcome="rejected"} 1"#,
            #"tabula_events_total{kind="switch",outcome="replayed"} 1"#,
            #"tabula_events_total{kind="switch",outcome="unchanged"} 1"#,
            "# TYPE tabula_change_set_items histogram",
            #"tabula_change_set_items_bucket{le="0.0"} 1"#,
            #"tabula_change_set_items_bucket{le="1.0"} 2"#,
            #"tabula_change_set_items_bucket{le="10000.0"} 2"#,
            #"tabula_change_set_items_bucket{le="+Inf"} 2"#,
            "tabula_change_set_items_sum 1.0",
            "tabula_change_set_items_count 2",
        ] {
            #expect(metrics.contains(line + "\n"), "\(line)")
        }
        #expect(!metrics.contains(#"kind="selection""#))
    }
}
