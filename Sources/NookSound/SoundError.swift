/// Why a melody, a sound file or a setting was refused: one message naming what was wrong and
/// where (an RTTTL string's character, a WAV file's chunk and field).
public struct SoundError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The character of an RTTTL string the error is at, counting from 1; nil where no one
    /// character is to blame.
    public var position: Int?

    public init(_ message: String, position: Int? = nil) {
        (self.message, self.position) = (message, position)
    }

    public var description: String { message }
}
