/// Where a `picker`'s or `segmented` row's options come from: a fixed list (ids fixed,
/// titles templates, so that string tables translate them), or one option per item of a
/// list key.
public enum ChoiceOptions: Sendable {
    case fixed([(id: String, title: Template)])
    /// One option per item of `list`, its id and title templates over the item.
    case forEach(list: String, id: Template, title: Template)

    /// The state keys the options read.
    public var stateKeys: Set<String> {
        switch self {
        case .fixed(let options): options.reduce(into: Set<String>()) { $0.formUnion($1.title.stateKeys) }
        case .forEach(let list, let id, let title): id.stateKeys.union(title.stateKeys).union([list])
        }
    }

    /// The options at a state.
    public func evaluate(_ context: EvaluationContext) -> [ChoiceOption] {
        switch self {
        case .fixed(let options):
            return options.map { ChoiceOption(id: $0.id, title: $0.title.evaluate(context)) }
        case .forEach(let list, let id, let title):
            return context.state.records(list).map { record in
                let itemContext = EvaluationContext(state: context.state, item: record, strings: context.strings, screen: context.screen)
                return ChoiceOption(id: id.evaluate(itemContext), title: title.evaluate(itemContext))
            }
        }
    }
}

/// What editing an input row does.
public enum EditAction: Sendable {
    /// Stores the edited value in a state key of the kind's state type.
    case set(String)
    /// Runs actions, in which the expression `value` is the edited value.
    case actions([Action])

    /// The state keys the actions read or write.
    var stateKeys: Set<String> {
        switch self {
        case .set(let key): [key]
        case .actions(let actions): actions.reduce(into: []) { $0.formUnion($1.stateKeys) }
        }
    }

    /// The state keys the actions store into: what a form's `reset` sets back.
    var storedKeys: [String] {
        switch self {
        case .set(let key): [key]
        case .actions(let actions):
            actions.flatMap { action -> [String] in
                switch action {
                case .set(let assignments): assignments.map(\.key).filter { Action.itemField(of: $0) == nil }
                case .toggle(let key): [key]
                default: []
                }
            }
        }
    }
}

extension RowContent {
    /// The type of the state key an input kind's value is stored in: a number for sliders
    /// and steppers, a string for the others (`""` standing for no choice or no date).
    public static let inputStateTypes: [String: ScalarType] = [
        "textField": .string, "slider": .number, "stepper": .number, "picker": .string, "segmented": .string,
        "datePicker": .string,
    ]

    /// What a client that does not draw this input kind gets instead: a `leftRightTitles`
    /// with the title (or `""`) on the left and the value as text on the right — the chosen
    /// option's title, the number as templates write it, the date as stored, `""` for a
    /// secure field or no value. Other kinds are returned as they are.
    public var asLeftRightTitles: RowContent {
        switch self {
        case .textField(let field): .leftRightTitles(leftTitle: field.title, rightTitle: field.secure ? "" : field.text)
        case .slider(let number), .stepper(let number):
            .leftRightTitles(leftTitle: number.title ?? "", rightTitle: Template.text(of: .number(number.value)))
        case .picker(let choice), .segmented(let choice): .leftRightTitles(leftTitle: choice.title ?? "", rightTitle: choice.selectedTitle)
        case .datePicker(let date): .leftRightTitles(leftTitle: date.title, rightTitle: date.value ?? "")
        default: self
        }
    }
}
