/// A parsed key path for ``ResponseValidator/requiredJSONKeys(_:)``: `a.b`, `items[].name`, `items[0]`.
struct RequiredKeyPath: Sendable {
    enum Step: Sendable {
        case key(String)
        case everyElement
        case element(Int)
    }

    let steps: [Step]

    init(_ text: String) {
        var steps: [Step] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            var remainder = Substring(part)
            if let bracket = remainder.firstIndex(of: "[") {
                let key = remainder[..<bracket]
                if !key.isEmpty { steps.append(.key(String(key))) }
                remainder = remainder[bracket...]
                while remainder.hasPrefix("["), let close = remainder.firstIndex(of: "]") {
                    let inside = remainder[remainder.index(after: remainder.startIndex)..<close]
                    if let index = Int(inside) { steps.append(.element(index)) } else { steps.append(.everyElement) }
                    remainder = remainder[remainder.index(after: close)...]
                }
                if !remainder.isEmpty { steps.append(.key(String(remainder))) }
            } else {
                steps.append(.key(String(remainder)))
            }
        }
        self.steps = steps
    }

    func collectMissing(in value: JSONValue, into missing: inout [String]) {
        walk(value, steps[...], rendered: "", into: &missing)
    }

    private func walk(_ value: JSONValue, _ steps: ArraySlice<Step>, rendered: String, into missing: inout [String]) {
        guard let step = steps.first else { return }
        let rest = steps.dropFirst()
        switch step {
        case .key(let key):
            let path = rendered.isEmpty ? key : rendered + "." + key
            guard case .object(let object) = value, let child = object[key] else {
                missing.append(path + Self.render(rest))
                return
            }
            walk(child, rest, rendered: path, into: &missing)
        case .element(let index):
            let path = rendered + "[\(index)]"
            guard case .array(let array) = value, array.indices.contains(index) else {
                missing.append(path + Self.render(rest))
                return
            }
            walk(array[index], rest, rendered: path, into: &missing)
        case .everyElement:
            guard case .array(let array) = value else {
                missing.append(rendered + "[]" + Self.render(rest))
                return
            }
            for (index, element) in array.enumerated() {
                walk(element, rest, rendered: rendered + "[\(index)]", into: &missing)
            }
        }
    }

    private static func render(_ steps: ArraySlice<Step>) -> String {
        steps.map { step in
            switch step {
            case .key(let key): "." + key
            case .element(let index): "[\(index)]"
            case .everyElement: "[]"
            }
        }.joined()
    }
}
