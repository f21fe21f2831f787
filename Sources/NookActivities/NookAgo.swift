/// "just now", "12 min ago", "3 h ago", "2 d ago": how long ago, as a glance needs it (a
/// recalled card's mark, a stale app's age, nookctl's lists).
public func nookAgo(_ seconds: Double) -> String {
    let seconds = max(0, seconds)
    switch seconds {
    case ..<60: return "just now"
    case ..<3600: return "\(Int(seconds / 60)) min ago"
    case ..<86_400: return "\(Int(seconds / 3600)) h ago"
    default: return "\(Int(seconds / 86_400)) d ago"
    }
}
