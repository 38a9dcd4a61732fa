import TabulaCore

/// The bundled inbox (`Fixtures/screens/inbox.json`) with as many messages as a benchmark
/// asks for, generated the same way every time, and a button that shows 50 messages more,
/// or 50 fewer once it showed more (`inbox-page`): a benchmark pages forward and back with
/// one event that always applies, in whatever order its requests arrive.
public enum InboxSample {
    static let subjects = [
        "Lunch on Friday?", "Quarterly report", "Re: flight times", "Your invoice", "Team offsite", "Draft for review", "Weekend plans",
        "Meeting notes", "Photos from the trip", "Re: budget", "New design ideas", "Happy birthday!", "Server maintenance", "Book club",
        "Re: contract", "Welcome aboard", "Reminder: dentist", "Tickets", "Recipe you asked for", "Release checklist",
    ]
    static let senders = [
        "Ann Lee", "Bob Stone", "Chloé Martin", "Dmitri Ivanov", "Emma Brown", "Farid Haddad", "Grace Kim", "Hugo Weber", "Ines Costa", "Jonas Berg",
    ]

    /// The definition file's bytes: `fixture` (the inbox's own) with `messageCount` messages.
    public static func definition(fixture: [UInt8], messageCount: Int) throws -> [UInt8] {
        guard case .object(var screen) = try JSONParser().parse(fixture), case .object(var state)? = screen["state"],
            case .array(var sections)? = screen["sections"], sections.count > 1, case .object(var messagesSection) = sections[1],
            case .array(var rows)? = messagesSection["rows"]
        else { throw NotTheInbox() }
        var random = SplitMix64(seed: 54)
        var messages: [JSONValue] = []
        for number in 0..<messageCount {
            let day = 1 + number % 28
            messages.append(
                .object(
                    JSONObject([
                        "id": .string("m\(number)"), "subject": .string(subjects[Int(random.next() % UInt64(subjects.count))]),
                        "sender": .string(senders[Int(random.next() % UInt64(senders.count))]),
                        "date": .string("2026-11-\(day < 10 ? "0" : "")\(day)"), "read": .bool(random.next() % 5 < 3),
                        "flagged": .bool(random.next() % 10 == 0),
                    ])))
        }
        state["messages"] = .array(messages)
        screen["state"] = .object(state)
        rows.append(
            .object(
                JSONObject([
                    "id": "inbox-page", "kind": "button", "title": "Show more or fewer",
                    "onSelect": .object(JSONObject(["set": .object(JSONObject(["inboxShown": "inboxShown > 50 ? inboxShown - 50 : inboxShown + 50"]))])),
                ])))
        messagesSection["rows"] = .array(rows)
        sections[1] = .object(messagesSection)
        screen["sections"] = .array(sections)
        return JSONValue.object(screen).canonicalBytes
    }
}

/// The file given to ``InboxSample/definition(fixture:messageCount:)`` is not the inbox's.
public struct NotTheInbox: Error {}
