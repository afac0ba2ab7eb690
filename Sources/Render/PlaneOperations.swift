/// Pixel loops over one 8-bit plane: exact orientation moves, blending and filling.
/// Planes are given as a base pointer at the region's first pixel plus a row stride.
enum PlaneOperations {
    /// Writes the `width × height` plane at `source`, moved by `orientation`, to
    /// `destination` (whose size is the oriented size).
    static func orient(_ orientation: Orientation, source: UnsafePointer<UInt8>, sourceStride: Int,
                       width: Int, height: Int, destination: UnsafeMutablePointer<UInt8>, destinationStride: Int) {
        switch orientation {
        case .identity, .mirrorX, .mirrorY, .rotate180:
            let flipX = orientation == .mirrorX || orientation == .rotate180
            let flipY = orientation == .mirrorY || orientation == .rotate180
            for v in 0..<height {
                let row = source + (flipY ? height - 1 - v : v) * sourceStride
                let out = destination + v * destinationStride
                if flipX {
                    for u in 0..<width { out[u] = row[width - 1 - u] }
                } else {
                    out.update(from: row, count: width)
                }
            }
        case .transpose, .rotate90, .rotate270, .antiTranspose:
            // Output (u, v) comes from source column x(v), row y(u). Eight output rows at
            // a time read eight neighbouring bytes of one source row, so each source cache
            // line is used whole instead of once per row.
            let reverseX = orientation == .rotate270 || orientation == .antiTranspose  // x = w-1-v
            let reverseY = orientation == .rotate90 || orientation == .antiTranspose   // y = h-1-u
            let outWidth = height, outHeight = width
            var v0 = 0
            while v0 < outHeight {
                let rows = min(8, outHeight - v0)
                let out = destination + v0 * destinationStride
                let firstX = reverseX ? width - 1 - v0 : v0
                let xStep = reverseX ? -1 : 1
                if rows == 8 {
                    for u in 0..<outWidth {
                        let p = source + (reverseY ? height - 1 - u : u) * sourceStride + firstX
                        out[u] = p[0]
                        out[destinationStride + u] = p[xStep]
                        out[2 * destinationStride + u] = p[2 * xStep]
                        out[3 * destinationStride + u] = p[3 * xStep]
                        out[4 * destinationStride + u] = p[4 * xStep]
                        out[5 * destinationStride + u] = p[5 * xStep]
                        out[6 * destinationStride + u] = p[6 * xStep]
                        out[7 * destinationStride + u] = p[7 * xStep]
                    }
                } else {
                    for u in 0..<outWidth {
                        let p = source + (reverseY ? height - 1 - u : u) * sourceStride + firstX
                        for k in 0..<rows { out[k * destinationStride + u] = p[k * xStep] }
                    }
                }
                v0 += 8
            }
        }
    }

    /// `destination = source × opacity + destination × (1 - opacity)` over a
    /// `width × height` region; a plain copy at full opacity.
    static func blend(source: UnsafePointer<UInt8>, sourceStride: Int, destination: UnsafeMutablePointer<UInt8>,
                      destinationStride: Int, width: Int, height: Int, opacity: Double) {
        let weight = Int((opacity * 256).rounded())
        if weight >= 256 {
            for y in 0..<height {
                (destination + y * destinationStride).update(from: source + y * sourceStride, count: width)
            }
            return
        }
        if weight <= 0 { return }
        let inverse = 256 - weight
        for y in 0..<height {
            let s = source + y * sourceStride, d = destination + y * destinationStride
            for x in 0..<width {
                d[x] = UInt8(truncatingIfNeeded: (Int(s[x]) * weight + Int(d[x]) * inverse + 128) >> 8)
            }
        }
    }

    /// Sets a `width × height` region to `value`.
    static func fill(_ destination: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, value: UInt8) {
        for y in 0..<height { (destination + y * stride).update(repeating: value, count: width) }
    }
}
