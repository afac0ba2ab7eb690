import DropcutMediaIO
import DropcutTimeline

/// Deinterlaces a track at its field rate: every interlaced frame becomes two frames, one
/// per field, each timed at its field's own instant (the second half way to the next
/// frame), so 1080i50 plays as 50 progressive frames a second and motion keeps all the
/// camera's temporal detail — not 25 frames with the fields blended, nor 50 duplicated
/// combed ones.
///
/// Each output frame keeps its field's lines as recorded and rebuilds the other field's
/// lines motion-adaptively, in the manner of FFmpeg's yadif and bwdif filters (written
/// here from their published description, on the YUV planes, without libavfilter):
/// - where nothing moves, the missing line is taken from the same field parity in the
///   neighbouring frames (their mean: full vertical detail on still parts);
/// - where things move, it is interpolated from the field's own lines above and below
///   (a cubic, four lines, as bwdif does, so edges stay sharper than a line average);
/// - how far the result may stray from the temporal prediction is the local motion:
///   the largest difference between the frames around it, widened by yadif's spatial
///   check so a moving edge is never woven (the comb).
///
/// Frames are held by reference (three decoded frames: before, current, after), output
/// pictures reuse their buffers: no allocation per frame. The loops run over plain rows
/// of integers, branch-free in the inner loop, so the compiler vectorises them. 8-bit and
/// high-bit-depth planar YUV are handled; other layouts pass through woven.
package final class Deinterlacer: VideoFrameFilter {
    /// The field order when the frames do not say (the source's, as probed).
    package let fieldOrder: FieldOrder
    package let timestampMultiplier: Int64 = 2

    private var previous: VideoFrame
    private var current: VideoFrame
    private var following: VideoFrame
    private var hasPrevious = false, hasCurrent = false, hasFollowing = false
    private var ended = false
    /// Fields of `current` already given out (0, 1 or 2).
    private var fieldsDone = 0
    /// The last frame interval seen, in stream ticks: the last frame's second field is
    /// this far after its first (halved).
    private var lastInterval: Int64 = 0

    /// Deinterlaces frames whose own flags do not say otherwise in `fieldOrder`.
    package init(fieldOrder: FieldOrder) throws(FFmpegError) {
        self.fieldOrder = fieldOrder
        previous = try VideoFrame()
        current = try VideoFrame()
        following = try VideoFrame()
    }

    package func reset() {
        previous.release(); current.release(); following.release()
        hasPrevious = false; hasCurrent = false; hasFollowing = false
        ended = false
        fieldsDone = 0
    }

    package func push(_ frame: VideoFrame?) throws {
        guard let frame else {
            ended = true
            return
        }
        if !hasCurrent {
            current.take(from: frame)
            hasCurrent = true
            fieldsDone = 0
        } else {
            following.take(from: frame)
            hasFollowing = true
        }
    }

    package func pull(into output: VideoFrame) throws -> Bool {
        guard hasCurrent, hasFollowing || ended else { return false }
        if fieldsDone == 2 {
            advance()
            guard hasCurrent, hasFollowing || ended else { return false }
        }
        let field = fieldsDone
        fieldsDone += 1
        try output.prepare(like: current)
        let start = current.pts ?? 0
        var interval = lastInterval
        if hasFollowing, let next = following.pts, next > start { interval = next - start }
        else if hasPrevious, let before = previous.pts, start > before { interval = start - before }
        lastInterval = interval
        output.pts = 2 * start + (field == 0 ? 0 : interval)
        render(field: field, into: output)
        return true
    }

    /// The current frame becomes the previous one, the following one current.
    private func advance() {
        swap(&previous, &current)
        hasPrevious = true
        swap(&current, &following)
        following.release()
        hasCurrent = hasFollowing
        hasFollowing = false
        fieldsDone = 0
    }

    /// Writes field `field` (0: the one shown first) of the current frame as a whole
    /// picture into `output`.
    private func render(field: Int, into output: VideoFrame) {
        let topFirst = current.isInterlaced ? current.isTopFieldFirst : fieldOrder == .topFirst
        // The lines kept: even ones (0) for the top field.
        let keptParity = (field == 0) == topFirst ? 0 : 1
        // The frames around the instant of this field that hold the missing parity: for
        // the first field, the previous frame's second field and this frame's; for the
        // second, this frame's first field and the next frame's. At the ends of the
        // stream the missing neighbour is the other one (time mirrored).
        // A neighbour of another size or format (the stream changed resolution) is no
        // neighbour: its rows must never be read against this frame's.
        let hasBefore = hasPrevious && previous.hasSameShape(as: current)
        let hasAfter = hasFollowing && following.hasSameShape(as: current)
        let before = hasBefore ? previous : (hasAfter ? following : current)
        let after = hasAfter ? following : (hasBefore ? previous : current)
        let earlier = field == 0 ? before : current, later = field == 0 ? current : after
        let format = current.pixelFormat
        guard let sampleBytes = format.planarYUVSampleBytes else {
            copyPlanes(into: output)
            return
        }
        let maximum = Int32((1 << format.bitDepth) - 1)
        for plane in 0..<3 {
            let width = current.planeWidth(plane), height = current.planeHeight(plane)
            current.withPlane(plane) { cur, curStride in
            before.withPlane(plane) { prev, prevStride in
            after.withPlane(plane) { next, nextStride in
            earlier.withPlane(plane) { early, earlyStride in
            later.withPlane(plane) { late, lateStride in
            output.withPlane(plane) { out, outStride in
                guard width > 0, height > 0,
                      let current = PlaneRows(cur, curStride), let previous = PlaneRows(prev, prevStride),
                      let next = PlaneRows(next, nextStride), let earlier = PlaneRows(early, earlyStride),
                      let later = PlaneRows(late, lateStride), let output = PlaneRows(out, outStride) else { return }
                let planes = FieldPlanes(current: current, previous: previous, next: next,
                                         earlier: earlier, later: later, output: output)
                // 8-bit samples are worked on in 16-bit lanes (every intermediate fits, and
                // SSE2 has 16-bit min/max: twice the lanes of 32-bit); deeper ones in 32-bit.
                if sampleBytes == 1 {
                    Self.deinterlace(UInt8.self, Int16.self, planes, width: width, height: height, keptParity: keptParity, maximum: maximum)
                } else {
                    Self.deinterlace(UInt16.self, Int32.self, planes, width: width, height: height, keptParity: keptParity, maximum: maximum)
                }
            } } } } } }
        }
    }

    /// A picture the deinterlacer cannot read passes through as it is (woven).
    private func copyPlanes(into output: VideoFrame) {
        for plane in 0..<4 {
            current.withPlane(plane) { source, sourceStride in
                output.withPlane(plane) { destination, destinationStride in
                    guard let from = source.baseAddress, let to = destination.baseAddress, sourceStride > 0 else { return }
                    let rows = min(source.count / sourceStride, destination.count / max(1, destinationStride))
                    let bytes = min(sourceStride, destinationStride)
                    for row in 0..<rows {
                        (to + row * destinationStride).copyMemory(from: from + row * sourceStride, byteCount: bytes)
                    }
                }
            }
        }
    }

    /// One plane's rows: its first byte and the bytes from one row to the next.
    struct PlaneRows {
        let base: UnsafeMutableRawPointer
        let stride: Int

        init?(_ plane: UnsafeMutableRawBufferPointer, _ stride: Int) {
            guard let base = plane.baseAddress, stride > 0 else { return nil }
            self.base = base
            self.stride = stride
        }

        @inline(__always)
        func row<Sample>(_ y: Int, _: Sample.Type) -> UnsafeMutablePointer<Sample> {
            (base + y * stride).assumingMemoryBound(to: Sample.self)
        }
    }

    /// The planes one output plane is made from: the current, previous and next frames,
    /// the frames before and after the field's instant, and the output.
    struct FieldPlanes {
        let current, previous, next, earlier, later, output: PlaneRows
    }

    /// One plane: the kept lines copied, the others rebuilt (`width` samples a row).
    @_specialize(where Sample == UInt8, Lane == Int16)
    @_specialize(where Sample == UInt16, Lane == Int32)
    static func deinterlace<Sample: FixedWidthInteger & UnsignedInteger, Lane: FixedWidthInteger & SignedInteger>(
        _: Sample.Type, _: Lane.Type, _ p: FieldPlanes, width: Int, height: Int, keptParity: Int, maximum: Int32
    ) {
        let (cur, prev, next, early, late, out) = (p.current, p.previous, p.next, p.earlier, p.later, p.output)
        let s = Sample.self
        for y in 0..<height {
            if y & 1 == keptParity {
                out.row(y, s).update(from: cur.row(y, s), count: width)
                continue
            }
            // The field's own lines around y (mirrored at the picture's edges) and the two
            // beyond them for the cubic; the missing parity's lines two above and below.
            let above = y - 1 >= 0 ? y - 1 : y + 1, below = y + 1 < height ? y + 1 : above
            let farAbove = y - 3 >= 0 ? y - 3 : above, farBelow = y + 3 < height ? y + 3 : below
            let twoAbove = y - 2 >= 0 ? y - 2 : y, twoBelow = y + 2 < height ? y + 2 : y
            guard above >= 0, above < height else {
                // A one-line plane: nothing to interpolate from but the line itself.
                out.row(y, s).update(from: cur.row(y, s), count: width)
                continue
            }
            Self.interpolateRow(
                c: cur.row(above, s), e: cur.row(below, s), cFar: cur.row(farAbove, s), eFar: cur.row(farBelow, s),
                prevC: prev.row(above, s), prevE: prev.row(below, s), nextC: next.row(above, s), nextE: next.row(below, s),
                early: early.row(y, s), late: late.row(y, s),
                earlyB: early.row(twoAbove, s), lateB: late.row(twoAbove, s),
                earlyF: early.row(twoBelow, s), lateF: late.row(twoBelow, s),
                out: out.row(y, s), width: width, maximum: Lane(truncatingIfNeeded: maximum))
        }
    }

    /// One missing line. `c`/`e`: the field's lines above and below in the current frame
    /// (`cFar`/`eFar` the next ones out); `prevC`... the same lines in the previous and next
    /// frames; `early`/`late`: the missing line in the frames before and after this field's
    /// instant (`B`/`F`: two lines above and below it).
    @inline(__always)
    static func interpolateRow<Sample: FixedWidthInteger & UnsignedInteger, Lane: FixedWidthInteger & SignedInteger>(
        c: UnsafeMutablePointer<Sample>, e: UnsafeMutablePointer<Sample>,
        cFar: UnsafeMutablePointer<Sample>, eFar: UnsafeMutablePointer<Sample>,
        prevC: UnsafeMutablePointer<Sample>, prevE: UnsafeMutablePointer<Sample>,
        nextC: UnsafeMutablePointer<Sample>, nextE: UnsafeMutablePointer<Sample>,
        early: UnsafeMutablePointer<Sample>, late: UnsafeMutablePointer<Sample>,
        earlyB: UnsafeMutablePointer<Sample>, lateB: UnsafeMutablePointer<Sample>,
        earlyF: UnsafeMutablePointer<Sample>, lateF: UnsafeMutablePointer<Sample>,
        out: UnsafeMutablePointer<Sample>, width: Int, maximum: Lane
    ) {
        // Branch-free (no trapping `abs`, no checked shifts), so it vectorises.
        @inline(__always) func magnitude(_ v: Lane) -> Lane { max(v, 0 &- v) }
        @inline(__always) func load(_ p: UnsafeMutablePointer<Sample>, _ x: Int) -> Lane { Lane(truncatingIfNeeded: p[x]) }
        for x in 0..<width {
            let above = load(c, x), below = load(e, x)
            let a = load(early, x), b = load(late, x)
            // Temporal prediction and how much the picture moves here.
            let temporal = (a &+ b) &>> 1
            let change = magnitude(a &- b) &>> 1
            let before = (magnitude(load(prevC, x) &- above) &+ magnitude(load(prevE, x) &- below)) &>> 1
            let after = (magnitude(load(nextC, x) &- above) &+ magnitude(load(nextE, x) &- below)) &>> 1
            var allowed = max(change, max(before, after))
            // yadif's spatial check: a temporal prediction outside the vertical neighbours
            // (taking the lines two away into account) widens what is allowed.
            let twoAbove = (load(earlyB, x) &+ load(lateB, x)) &>> 1
            let twoBelow = (load(earlyF, x) &+ load(lateF, x)) &>> 1
            let high = max(max(temporal &- below, temporal &- above), min(twoAbove &- above, twoBelow &- below))
            let low = min(min(temporal &- below, temporal &- above), max(twoAbove &- above, twoBelow &- below))
            allowed = max(allowed, max(low, 0 &- high))
            // Spatial prediction: a cubic through the field's four nearest lines.
            let far = load(cFar, x) &+ load(eFar, x)
            let spatial = (9 &* (above &+ below) &- far &+ 8) &>> 4
            let value = min(max(spatial, temporal &- allowed), temporal &+ allowed)
            out[x] = Sample(truncatingIfNeeded: min(max(value, 0), maximum))
        }
    }
}
