/// What an `append` action adds: an item for a list, its fields computed from the state
/// before it is added.
public struct ItemAppend: Sendable {
    public enum Place: String, CaseIterable, Sendable {
        case end, start
    }

    public let list: String
    /// The item's id, a template; a generated one when `nil` or when it comes to `""`.
    public let id: Template?
    /// Every field of the list's items but `id`.
    public let fields: [(name: String, value: FieldSource)]
    public let place: Place

    public init(list: String, id: Template?, fields: [(name: String, value: FieldSource)], place: Place) {
        self.list = list
        self.id = id
        self.fields = fields
        self.place = place
    }

    /// The state keys its values read.
    var stateKeys: Set<String> {
        var keys: Set<String> = [list]
        if let id { keys.formUnion(id.stateKeys) }
        for field in fields { keys.formUnion(field.value.stateKeys) }
        return keys
    }

    /// An id for an item the definition gives none: lowercase letters and digits derived
    /// from `seed` (the session), the revision the event starts from and the action's place
    /// in the event, so that the same event on the same state gives the same id; then the
    /// first variant the list does not hold.
    static func generatedID(seed: String, revision: Int, place: Int, taken: (String) -> Bool) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)
        var attempt = 0
        while true {
            let digest = SHA256.digest(Array("\(seed)/\(revision)/\(place)/\(attempt)".utf8))
            var id = ""
            var bits: UInt32 = 0
            var count = 0
            for byte in digest.prefix(10) {
                bits = bits << 8 | UInt32(byte)
                count += 8
                while count >= 5 {
                    count -= 5
                    id.unicodeScalars.append(Unicode.Scalar(alphabet[Int((bits >> UInt32(count)) & 31)]))
                }
            }
            if !taken(id) { return id }
            attempt += 1
        }
    }
}
