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
            // Output (u, v) comes from source column x(v), row y(u). Work in 8×8 blocks:
            // eight 8-byte loads from eight source rows, a transpose in registers, eight
            // 8-byte stores — each cache line read and written whole.
            let reverseX = orientation == .rotate270 || orientation == .antiTranspose  // x = w-1-v
            let reverseY = orientation == .rotate90 || orientation == .antiTranspose   // y = h-1-u
            let outWidth = height, outHeight = width
            let sourceRaw = UnsafeRawPointer(source), destinationRaw = UnsafeMutableRawPointer(destination)
            var v0 = 0
            while v0 + 8 <= outHeight {
                // Source columns x(v0) ... x(v0+7), as one 8-byte run starting at `column`.
                let column = reverseX ? width - 8 - v0 : v0
                var u0 = 0
                while u0 + 8 <= outWidth {
                    var block = Block8x8()
                    for i in 0..<8 {
                        let y = reverseY ? height - 1 - (u0 + i) : u0 + i
                        let word = UInt64(littleEndian: sourceRaw.loadUnaligned(fromByteOffset: y * sourceStride + column, as: UInt64.self))
                        block[i] = reverseX ? word.byteSwapped : word
                    }
                    block.transpose()
                    for k in 0..<8 {
                        destinationRaw.storeBytes(of: block[k].littleEndian, toByteOffset: (v0 + k) * destinationStride + u0, as: UInt64.self)
                    }
                    u0 += 8
                }
                for u in u0..<outWidth {   // the columns left over at the right edge
                    let row = source + (reverseY ? height - 1 - u : u) * sourceStride
                    for k in 0..<8 { destination[(v0 + k) * destinationStride + u] = row[reverseX ? width - 1 - (v0 + k) : v0 + k] }
                }
                v0 += 8
            }
            for v in v0..<outHeight {   // the rows left over at the bottom
                let x = reverseX ? width - 1 - v : v
                let out = destination + v * destinationStride
                for u in 0..<outWidth { out[u] = source[(reverseY ? height - 1 - u : u) * sourceStride + x] }
            }
        }
    }

    /// Eight rows of eight bytes (byte k of row i is element (i, k)), transposed in
    /// registers by swapping 4×4, then 2×2, then 1×1 sub-blocks.
    struct Block8x8 {
        var rows: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

        subscript(i: Int) -> UInt64 {
            get { withUnsafeBytes(of: rows) { $0.load(fromByteOffset: i * 8, as: UInt64.self) } }
            set { withUnsafeMutableBytes(of: &rows) { $0.storeBytes(of: newValue, toByteOffset: i * 8, as: UInt64.self) } }
        }

        mutating func transpose() {
            swap(distance: 4, shift: 32, mask: 0x0000_0000_FFFF_FFFF)
            swap(distance: 2, shift: 16, mask: 0x0000_FFFF_0000_FFFF)
            swap(distance: 1, shift: 8, mask: 0x00FF_00FF_00FF_00FF)
        }

        /// Rows i and i+distance (i in the lower half of each group) trade the sub-blocks
        /// that lie across the diagonal.
        private mutating func swap(distance: Int, shift: UInt64, mask: UInt64) {
            var i = 0
            while i < 8 {
                for j in i..<(i + distance) {
                    let a = self[j], b = self[j + distance]
                    self[j] = (a & mask) | ((b & mask) << shift)
                    self[j + distance] = ((a >> shift) & mask) | (b & ~mask)
                }
                i += 2 * distance
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
