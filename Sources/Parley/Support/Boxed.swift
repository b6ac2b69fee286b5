/// A value kept behind one reference, copied on change: a large value that is read often, changed seldom and held in
/// many async frames (a call's scope, an error that typed throws keeps in every caller's frame) costs one word in each.
///
/// The box is immutable and shared by the copies; a change makes a new one, so the value semantics of `Value` hold.
@dynamicMemberLookup
struct Boxed<Value: Sendable>: Sendable {
    private final class Box: Sendable {
        let value: Value

        init(_ value: Value) {
            self.value = value
        }
    }

    private var box: Box

    init(_ value: Value) {
        box = Box(value)
    }

    /// The whole value; setting it makes a new box.
    var value: Value {
        get { box.value }
        set { box = Box(newValue) }
    }

    /// One part of the value; setting it makes a new box.
    subscript<Part>(dynamicMember part: WritableKeyPath<Value, Part>) -> Part {
        get { box.value[keyPath: part] }
        set {
            var value = box.value
            value[keyPath: part] = newValue
            box = Box(value)
        }
    }
}
