import DropcutMediaIO
import DropcutTimeline

/// Which still picture a layer shows, and over what: a picture with alpha is flattened
/// over the instruction's background, so the same file over another colour is another
/// picture.
struct StillIdentity: Hashable {
    /// Numbered by `VideoSources` as it decodes each still (never reused within a render,
    /// unlike an object's address).
    var serial: Int
    var background: Color
}

/// Copies of still pictures made once and reused by every frame of their span: the crop
/// turned by its orientation and shrunk towards the size the frame needs.
///
/// A photo is large (12–48 MP) and held for seconds. Turning it upright and shrinking it
/// to the canvas with swscale for every output frame cost more than the encoder; a copy
/// made once costs one such pass. Under a zoom the size a frame needs changes every frame:
/// a copy serves while it is at least that size (nothing is lost) and at most twice it
/// (the warp's bicubic taps do not skip source pixels). When it stops serving, the next is
/// made `headroom` larger than needed, so a slow zoom makes a new copy rarely (a 1.2×
/// Ken Burns: once or twice).
///
/// At most `capacity` copies are kept (a transition between two photos needs two); each
/// is at most the oriented picture's size.
final class StillCopies {
    struct Key: Hashable {
        var still: StillIdentity
        var crop: PixelRect
        var orientation: Orientation
    }

    static let capacity = 3
    static let headroom = 1.4
    private var entries: [(key: Key, frame: VideoFrame)] = []
    /// How many copies have been made (for tests: a zoom must not make one per frame).
    private(set) var made = 0

    /// The copy for `key` that serves a frame needing `needed` pixels of an oriented crop
    /// `whole` large, if there is one (then marked as the latest used).
    func copy(_ key: Key, needed: PixelSize, whole: PixelSize) -> VideoFrame? {
        guard let index = entries.firstIndex(where: { $0.key == key }),
              Self.serves(entries[index].frame.size, needed: needed, whole: whole) else { return nil }
        if index > 0 { entries.insert(entries.remove(at: index), at: 0) }
        return entries[0].frame
    }

    /// The size to make `key`'s next copy at: exactly `needed` for its first (a still that
    /// does not zoom keeps it for good), `headroom` more for the next ones, never more
    /// than `whole`.
    func sizeToMake(_ key: Key, needed: PixelSize, whole: PixelSize) -> PixelSize {
        let grown = entries.contains { $0.key == key }
        func side(_ n: Int, _ w: Int) -> Int {
            guard grown else { return min(n, w) }
            return min(w, Int((Double(n) * Self.headroom).rounded(.up)))
        }
        return PixelSize(width: side(needed.width, whole.width), height: side(needed.height, whole.height))
    }

    /// Keeps `frame` as `key`'s copy (replacing the one before), dropping the longest
    /// unused copy beyond `capacity`.
    func insert(_ frame: VideoFrame, for key: Key) {
        made += 1
        entries.removeAll { $0.key == key }
        entries.insert((key, frame), at: 0)
        if entries.count > Self.capacity { entries.removeLast(entries.count - Self.capacity) }
    }

    /// True when a copy `size` large serves a frame needing `needed` of an oriented crop
    /// `whole` large: on each axis at least what is needed (or the whole crop, when more
    /// is needed than there is) and at most twice it.
    static func serves(_ size: PixelSize, needed: PixelSize, whole: PixelSize) -> Bool {
        func ok(_ s: Int, _ n: Int, _ w: Int) -> Bool { s >= min(n, w) && s <= 2 * n }
        return ok(size.width, needed.width, whole.width) && ok(size.height, needed.height, whole.height)
    }
}
