import DropcutMediaIO
import DropcutTimeline

/// Draws one output frame: the background, then each layer from back to front — the
/// crop taken from the decoded frame, moved exactly by its orientation, scaled with
/// libswscale when the transform scales, and blended at the layer's opacity — all in
/// YUV 4:2:0, the decoder's and encoder's own format: 8-bit BT.709 for SDR outputs,
/// 10-bit BT.2020 HLG (`yuv420p10`, 16-bit samples) for HLG outputs.
///
/// With frame blending, a layer's two neighbouring source frames are mixed first (after
/// conversion to the output format), so the blend is a plain per-sample weighted mean.
///
/// Layers hidden behind an opaque layer that covers the canvas are not drawn, nor is the
/// background. Intermediate pictures live in scratch frames kept between calls, so a
/// steady stream of same-shaped frames allocates nothing.
final class VideoCompositor {
    let renderSize: PixelSize
    /// The working space every layer is brought into, and the canvas's.
    let dynamicRange: OutputDynamicRange
    private let canvasRect: PixelRect
    /// True for 16-bit canvases (HLG outputs).
    private let wide: Bool
    /// The sample loops, in the canvas's bit depth.
    private var planes: CanvasPlanes
    private var scratch: [ScratchKey: VideoFrame] = [:]
    /// Still pictures turned and shrunk once for the frames that show them.
    private let stills = StillCopies()
    /// How many still copies have been made so far (`StillCopies.made`).
    var stillCopiesMade: Int { stills.made }
    /// One scaler per role and slot: its context stays cached while the shape is steady.
    private var scalers: [ScalerKey: Scaler] = [:]
    /// The layers drawn in the current frame (kept to reuse its storage).
    private var placements: [(Int, Drawing)] = []
    /// HDR-to-SDR tables, one per source colour and bit depth, built on first use.
    private var toneMaps: [ToneMapKey: ToneMapLUT] = [:]
    /// SDR/PQ-to-HLG tables (HLG outputs), one per source colour, built on first use.
    private var hlgTables: [ColorDescription: HLGConversionLUT] = [:]
    /// The background's 10-bit codes, kept while the colour holds (HLG outputs).

    private enum Role { case converted, mixed, oriented, scaled, widened }

    /// How a layer is drawn: by exact pixel moves and swscale (quarter turns, mirrors,
    /// scales, moves — bit for bit as before the general warp existed), or warped.
    private enum Drawing {
        case placed(LayerPlacement)
        case warped(LayerWarp)

        /// The canvas pixels it may touch.
        var destination: PixelRect {
            switch self {
            case let .placed(placement): return placement.destination
            case let .warped(warp): return warp.destination
            }
        }
    }

    private struct ScratchKey: Hashable {
        var role: Role
        var slot: Int
        var size: PixelSize
        var format: PixelFormat
    }

    private struct ToneMapKey: Hashable {
        var color: ColorDescription
        var bitDepth: Int
    }

    private struct ScalerKey: Hashable {
        var role: Role
        var slot: Int
    }

    init(renderSize: PixelSize, dynamicRange: OutputDynamicRange = .sdr) {
        self.renderSize = renderSize
        self.dynamicRange = dynamicRange
        canvasRect = PixelRect(size: renderSize)
        wide = dynamicRange.pixelFormat.bitDepth > 8
        planes = CanvasPlanes(wide: wide)
    }

    /// Composites `plan` into `canvas` (a frame of `renderSize` in
    /// `dynamicRange.pixelFormat`, tagged with its colour);
    /// `frames[i]` is the decoded picture for `plan.layers[i]`.
    func composite(_ plan: FramePlan, frames: [LayerPicture], into canvas: VideoFrame) throws {
        placements.removeAll(keepingCapacity: true)
        var covered = false
        for (i, layer) in plan.layers.enumerated() {
            guard let drawing = drawing(layer, frames[i]), let visible = drawing.destination.intersection(canvasRect) else { continue }
            placements.append((i, drawing))
            // (A warped layer's anti-aliased rim never covers the canvas for sure.)
            if case .placed = drawing, layer.opacity >= 1, visible == canvasRect {
                covered = true
                break
            }
        }
        if !covered { planes.fillBackground(canvas, color: plan.background) }
        for (slot, (i, drawing)) in placements.enumerated().reversed() {
            switch drawing {
            case let .placed(placement):
                try draw(frames[i], placement: placement, opacity: plan.layers[i].opacity, slot: slot, into: canvas)
            case let .warped(warp):
                try draw(frames[i], warp: warp, opacity: plan.layers[i].opacity, slot: slot, into: canvas)
            }
        }
    }

    /// How `layer` is drawn: by the exact placement when its transform is a pixel move
    /// (and it is not zooming smoothly), else by the warp; nil when nothing of it shows.
    private func drawing(_ layer: FramePlan.Layer, _ picture: LayerPicture) -> Drawing? {
        if !layer.resampled {
            do {
                guard let placement = try LayerPlacement.place(frameSize: picture.frame.size, displaySize: picture.displaySize,
                                                              crop: layer.crop, transform: layer.transform) else { return nil }
                // The exact path scales the whole crop before blending the part that shows:
                // a constant zoom of 12 on 1080p would be a 23040x12960 picture. Past a
                // few canvases' worth the warp draws it, sampling only the visible pixels.
                if !placement.needsScaling || !Self.oversized(placement.destination, canvas: canvasRect) {
                    return .placed(placement)
                }
            } catch {
                // Not a pixel move (turned by another angle, sheared): warped below.
            }
        }
        guard let warp = LayerWarp.make(frameSize: picture.frame.size, displaySize: picture.displaySize,
                                        crop: layer.crop, transform: layer.transform) else { return nil }
        return .warped(warp)
    }

    /// How many canvases' worth of scaled picture the exact path may make: a fill of a
    /// 21:9 clip into a 9:16 frame is 4.15; a zoom past that draws by the warp.
    static let exactScalingLimit = 5

    /// Whether scaling to `destination` would make more than `exactScalingLimit` canvases
    /// of pixels (computed in Int64: a zoom of 100 on 8K is 10^12 pixels).
    static func oversized(_ destination: PixelRect, canvas: PixelRect) -> Bool {
        Int64(destination.width) * Int64(destination.height) > Int64(exactScalingLimit) * Int64(canvas.width) * Int64(canvas.height)
    }

    /// `crop` of the picture in the output's format, the next frame mixed in when the
    /// picture blends two.
    private func prepared(_ picture: LayerPicture, crop: PixelRect, slot: Int) throws -> (VideoFrame, PixelRect) {
        var (source, region) = try outputFormat(picture.frame, region: crop, role: .converted, slot: slot)
        if picture.blends, let next = picture.next, next.size == picture.frame.size {
            // Mix the next frame in: a copy of the first (unless it already is a scratch
            // copy), then the second blended over it at the weight.
            let (other, otherRegion) = try outputFormat(next, region: crop, role: .mixed, slot: slot)
            if source === picture.frame {
                let copy = try scratchFrame(.converted, slot: slot, size: PixelSize(width: region.width, height: region.height))
                planes.blend(source, region: region, into: copy, at: PixelRect(size: copy.size), opacity: 1)
                (source, region) = (copy, PixelRect(size: copy.size))
            }
            planes.blend(other, region: otherRegion, into: source, at: region, opacity: picture.weight)
        }
        return (source, region)
    }

    private func draw(_ picture: LayerPicture, placement: LayerPlacement, opacity: Double, slot: Int, into canvas: VideoFrame) throws {
        let direct = opacity >= 1 && placement.destination.intersection(canvasRect) == placement.destination
        // swscale writes whole vector blocks (8 samples here): scaled straight into a part
        // of the canvas, a width that is not a multiple of one would spill up to 7 samples
        // of garbage past the layer's right edge (a grey stripe beside a pillarboxed 20:9
        // clip). Only a layer covering the whole canvas is scaled straight into it: its
        // rows end where the canvas's do, padded to 32 bytes, which holds the spill.
        let scaledDirect = direct && placement.destination == canvasRect
        let size = PixelSize(width: placement.destination.width, height: placement.destination.height)
        var (source, region): (VideoFrame, PixelRect)
        if let still = picture.still, placement.orientation != .identity || placement.needsScaling {
            // A still: turned and scaled once, the copy drawn as it is (or, while it
            // zooms, scaled from the copy rather than from the whole picture).
            let copy = try stillCopy(picture, still, crop: placement.crop, orientation: placement.orientation,
                                     whole: placement.orientedSize, needed: placement.needsScaling ? size : placement.orientedSize, slot: slot)
            (source, region) = (copy, PixelRect(size: copy.size))
        } else {
            (source, region) = try prepared(picture, crop: placement.crop, slot: slot)
            if placement.orientation != .identity {
                let oriented = placement.orientedSize
                if direct && !placement.needsScaling {
                    planes.orient(source, region: region, placement.orientation, into: canvas, at: placement.destination)
                    return
                }
                let turned = try scratchFrame(.oriented, slot: slot, size: oriented)
                planes.orient(source, region: region, placement.orientation, into: turned, at: PixelRect(size: oriented))
                (source, region) = (turned, PixelRect(size: oriented))
            }
        }
        if region.width != size.width || region.height != size.height {
            let scaler = scaler(.scaled, slot: slot)
            if scaledDirect {
                try scaler.scale(source, region: region, into: canvas, region: placement.destination)
                return
            }
            let scaled = try scratchFrame(.scaled, slot: slot, size: size)
            try scaler.scale(source, region: region, into: scaled, region: PixelRect(size: size))
            (source, region) = (scaled, PixelRect(size: size))
        }
        planes.blend(source, region: region, into: canvas, at: placement.destination, opacity: opacity)
    }

    /// Draws a warped layer: the crop in the output's format, shrunk by swscale first when
    /// the warp would shrink it by more than half, then resampled plane by plane straight
    /// onto the canvas.
    private func draw(_ picture: LayerPicture, warp: LayerWarp, opacity: Double, slot: Int, into canvas: VideoFrame) throws {
        guard let visible = warp.destination.intersection(canvasRect) else { return }
        var warp = warp
        // Chroma moves with its luma as whole samples, as a quarter-turned clip's does on
        // the exact path; after a transposition its across-siting is the source's vertical
        // one, centred. (A mirror of left-sited chroma, sited right, is read as left-sited:
        // a quarter of a chroma sample, as the exact path leaves it.)
        let sourceCentred = picture.frame.chromaIsCentreSited || warp.orientation.swapsAxes
        var (source, region): (VideoFrame, PixelRect)
        if let still = picture.still, warp.orientation != .identity || warp.prescales {
            // A still: turned and shrunk once, the warp reading the copy at its own size.
            let copy = try stillCopy(picture, still, crop: warp.crop, orientation: warp.orientation,
                                     whole: warp.orientedSize, needed: warp.sampledSize, slot: slot)
            warp = warp.sampled(at: copy.size)
            (source, region) = (copy, PixelRect(size: copy.size))
        } else {
            (source, region) = try prepared(picture, crop: warp.crop, slot: slot)
            if warp.orientation != .identity {
                let oriented = try scratchFrame(.oriented, slot: slot, size: warp.orientedSize)
                planes.orient(source, region: region, warp.orientation, into: oriented, at: PixelRect(size: warp.orientedSize))
                (source, region) = (oriented, PixelRect(size: warp.orientedSize))
            }
            if warp.prescales {
                let scaled = try scratchFrame(.scaled, slot: slot, size: warp.sampledSize)
                try scaler(.scaled, slot: slot).scale(source, region: region, into: scaled, region: PixelRect(size: warp.sampledSize))
                (source, region) = (scaled, PixelRect(size: warp.sampledSize))
            }
        }
        let maximum = (1 << dynamicRange.pixelFormat.bitDepth) - 1
        for plane in 0..<3 {
            let map = PlaneWarp(warp, plane: plane, sourceCentred: sourceCentred, canvasCentred: false)
            let from = CanvasPlanes.planeRegion(region, plane: plane), to = CanvasPlanes.planeRegion(visible, plane: plane)
            let columns = to.x..<min(to.maxX, canvas.planeWidth(plane)), rows = to.y..<min(to.maxY, canvas.planeHeight(plane))
            source.withPlane(plane) { src, srcStride in
                canvas.withPlane(plane) { dst, dstStride in
                    if wide {
                        PlaneOperations.warp(map, source: CanvasPlanes.wideOrigin(of: from, in: src, stride: srcStride), sourceStride: srcStride / 2,
                                             sourceWidth: from.width, sourceHeight: from.height,
                                             destination: CanvasPlanes.wideOrigin(of: PixelRect(x: 0, y: 0, width: 0, height: 0), in: dst, stride: dstStride),
                                             destinationStride: dstStride / 2, columns: columns, rows: rows, opacity: opacity, maximum: maximum)
                    } else {
                        PlaneOperations.warp(map, source: CanvasPlanes.origin(of: from, in: src, stride: srcStride), sourceStride: srcStride,
                                             sourceWidth: from.width, sourceHeight: from.height,
                                             destination: CanvasPlanes.origin(of: PixelRect(x: 0, y: 0, width: 0, height: 0), in: dst, stride: dstStride),
                                             destinationStride: dstStride, columns: columns, rows: rows, opacity: opacity, maximum: maximum)
                    }
                }
            }
        }
    }

    /// The copy of a still's `crop`, turned by `orientation` (`whole` large then) and
    /// brought to at least `needed` (`StillCopies`): kept from an earlier frame when it
    /// serves, else made now — converted, turned and scaled once, in frames of its own
    /// (a photo-sized scratch frame would stay allocated for the whole render).
    private func stillCopy(_ picture: LayerPicture, _ still: StillIdentity, crop: PixelRect, orientation: Orientation,
                           whole: PixelSize, needed: PixelSize, slot: Int) throws -> VideoFrame {
        let key = StillCopies.Key(still: still, crop: crop, orientation: orientation)
        if let copy = stills.copy(key, needed: needed, whole: whole) { return copy }
        let size = stills.sizeToMake(key, needed: needed, whole: whole)
        var (source, region) = try prepared(picture, crop: crop, slot: slot)
        func frame(_ size: PixelSize) throws -> VideoFrame {
            let frame = try VideoFrame(width: size.width, height: size.height, pixelFormat: dynamicRange.pixelFormat)
            if dynamicRange != .sdr { frame.setColorTags(dynamicRange.color) }
            return frame
        }
        if orientation != .identity {
            let oriented = try frame(whole)
            planes.orient(source, region: region, orientation, into: oriented, at: PixelRect(size: whole))
            (source, region) = (oriented, PixelRect(size: whole))
        }
        let copy: VideoFrame
        if size == whole, orientation != .identity {
            copy = source
        } else {
            copy = try frame(size)
            try Scaler().scale(source, region: region, into: copy, region: PixelRect(size: size))
        }
        stills.insert(copy, for: key)
        return copy
    }

    /// `region` of `frame` in the output's format — video-range BT.709 SDR 4:2:0 — as is,
    /// or converted into a scratch frame of role `role` (yuvj, 4:2:2, 10-bit, BT.601 phone
    /// and SD video...). HLG and PQ pictures are tone mapped (`ToneMapLUT`) here, before
    /// anything is scaled, blended or drawn over them: layers, background and overlays all
    /// meet in SDR, so an overlay's colours never pass through the HDR conversion. HLG
    /// outputs bring everything into 10-bit HLG instead (`hlgFormat`).
    private func outputFormat(_ frame: VideoFrame, region: PixelRect, role: Role, slot: Int) throws -> (VideoFrame, PixelRect) {
        if dynamicRange == .hlg { return try hlgFormat(frame, region: region, role: role, slot: slot) }
        let color = frame.colorDescription
        if color.isHDR {
            return try toneMapped(frame, color: color, region: region, role: role, slot: slot)
        }
        guard frame.pixelFormat != .yuv420p || frame.isFullRange || !frame.usesBT709 else { return (frame, region) }
        let converted = try scratchFrame(role, slot: slot, size: PixelSize(width: region.width, height: region.height))
        try scaler(role, slot: slot).scale(frame, region: region, into: converted, region: PixelRect(size: converted.size))
        return (converted, PixelRect(size: converted.size))
    }

    /// `region` of the HDR `frame` tone mapped into an SDR scratch frame. Layouts the table
    /// does not read (4:2:2, 4:4:4, packed) are first repacked by swscale into 10-bit 4:2:0
    /// video range, which keeps the HDR signal as it is.
    private func toneMapped(_ frame: VideoFrame, color: ColorDescription, region: PixelRect, role: Role,
                            slot: Int) throws -> (VideoFrame, PixelRect) {
        let (source, sourceRegion, sourceColor) = try tableInput(frame, color: color, region: region, slot: slot)
        let key = ToneMapKey(color: sourceColor, bitDepth: source.pixelFormat.bitDepth)
        let table: ToneMapLUT
        if let cached = toneMaps[key] {
            table = cached
        } else {
            // A few tables (4.4 MB each) at most: a file whose frames each state another
            // HDR peak must not make memory grow with its length.
            if toneMaps.count >= 4 { toneMaps.removeAll() }
            table = ToneMapLUT(source: sourceColor, bitDepth: key.bitDepth)
            toneMaps[key] = table
        }
        let converted = try scratchFrame(role, slot: slot, size: PixelSize(width: region.width, height: region.height))
        table.convert(source, region: sourceRegion, into: converted)
        return (converted, PixelRect(size: converted.size))
    }

    /// `region` of `frame` (described by `color`) in a layout the conversion tables read —
    /// planar 4:2:0 — with its description: the frame itself, or for 4:2:2, 4:4:4 and
    /// packed layouts a 10-bit video-range 4:2:0 scratch copy repacked by swscale with the
    /// source's own matrix kept (an RGB source gets BT.709's). Without the matrix tag on the
    /// copy, swscale would convert a BT.2020 picture into BT.709 before a table that reads
    /// it as BT.2020.
    private func tableInput(_ frame: VideoFrame, color: ColorDescription, region: PixelRect,
                            slot: Int) throws -> (VideoFrame, PixelRect, ColorDescription) {
        guard !frame.pixelFormat.isPlanarYUV420 else { return (frame, region, color) }
        var described = color
        let size = PixelSize(width: region.width, height: region.height)
        let widened = try scratchFrame(.widened, slot: slot, size: size, format: .yuv420p10)
        if color.matrix == .rgb {
            described.matrix = .bt709
            widened.setColorTags(described)
        } else {
            widened.copyColorTags(from: frame)
        }
        try scaler(.widened, slot: slot).scale(frame, region: region, into: widened, region: PixelRect(size: size))
        described.fullRange = false
        return (widened, PixelRect(size: size), described)
    }

    /// `region` of `frame` as the HLG canvas holds it — 10-bit video-range BT.2020 HLG
    /// 4:2:0. HLG in BT.2020 passes through as it is (or only repacked by swscale: 8-bit,
    /// 4:2:2, full range — the matrix kept); everything else — SDR clips and PQ — goes
    /// through an `HLGConversionLUT` into a scratch frame, SDR white landing at HLG 75 %.
    private func hlgFormat(_ frame: VideoFrame, region: PixelRect, role: Role, slot: Int) throws -> (VideoFrame, PixelRect) {
        let color = frame.colorDescription
        let size = PixelSize(width: region.width, height: region.height)
        if color.transfer == .hlg, color.primaries == .bt2020, color.matrix == .bt2020 {
            if frame.pixelFormat == .yuv420p10, !frame.isFullRange, frame.isTaggedBT2020 { return (frame, region) }
            let converted = try scratchFrame(role, slot: slot, size: size)
            // The source's own matrix tag on both sides: swscale repacks and brings the
            // range to video range, and converts no matrix (an untagged BT.2020 frame
            // would otherwise be taken for BT.709 and "converted").
            converted.copyColorTags(from: frame)
            try scaler(role, slot: slot).scale(frame, region: region, into: converted, region: PixelRect(size: size))
            converted.setColorTags(dynamicRange.color)
            return (converted, PixelRect(size: size))
        }
        let (source, sourceRegion, sourceColor) = try tableInput(frame, color: color, region: region, slot: slot)
        let converted = try scratchFrame(role, slot: slot, size: size)
        hlgTable(for: sourceColor).convert(source, region: sourceRegion, into: converted)
        converted.setColorTags(dynamicRange.color)
        return (converted, PixelRect(size: size))
    }

    /// The table that brings pictures described by `color` into HLG: the process's shared
    /// BT.709 one, or one of a few built here (PQ clips, BT.601 and P3 SDR clips).
    private func hlgTable(for color: ColorDescription) -> HLGConversionLUT {
        // The conversion does not depend on a PQ clip's stated peak (PQ is absolute) nor
        // on Dolby Vision's record: a file stating another peak per frame reuses its table.
        var key = color
        key.peakLuminance = nil
        key.dolbyVisionProfile = nil
        key.dolbyVisionCompatibility = nil
        if key == HLGConversionLUT.bt709.source { return HLGConversionLUT.bt709 }
        if let cached = hlgTables[key] { return cached }
        // A few tables (4.4 MB each) at most, as for tone mapping.
        if hlgTables.count >= 4 { hlgTables.removeAll() }
        let table = HLGConversionLUT(source: key)
        hlgTables[key] = table
        return table
    }

    /// A scratch frame kept for `role` and `slot`, in `format` (default: the canvas's, and
    /// for HLG canvases tagged as the canvas is).
    private func scratchFrame(_ role: Role, slot: Int, size: PixelSize, format: PixelFormat? = nil) throws -> VideoFrame {
        let format = format ?? dynamicRange.pixelFormat
        let key = ScratchKey(role: role, slot: slot, size: size, format: format)
        if let frame = scratch[key] { return frame }
        // Sizes change with ramps (push, wipe): keep the cache from growing without bound.
        if scratch.count > 32 { scratch.removeAll() }
        let frame = try VideoFrame(width: size.width, height: size.height, pixelFormat: format)
        if dynamicRange != .sdr { frame.setColorTags(dynamicRange.color) }
        scratch[key] = frame
        return frame
    }

    private func scaler(_ role: Role, slot: Int) -> Scaler {
        let key = ScalerKey(role: role, slot: slot)
        if let scaler = scalers[key] { return scaler }
        let scaler = Scaler()
        scalers[key] = scaler
        return scaler
    }
}
