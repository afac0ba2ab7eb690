/// The same pixel loops over one plane of 16-bit samples (10-bit video in `yuv420p10`, the
/// HLG outputs' canvas). Separate functions rather than generic ones, so the 8-bit loops
/// — every SDR render — stay as they are (their 8×8 byte transposes have no 16-bit twin
/// of the same shape). Strides are in samples, not bytes.
extension PlaneOperations {
    /// Writes the `width × height` plane at `source`, moved by `orientation`, to
    /// `destination` (whose size is the oriented size).
    static func orient(_ orientation: Orientation, source: UnsafePointer<UInt16>, sourceStride: Int,
                       width: Int, height: Int, destination: UnsafeMutablePointer<UInt16>, destinationStride: Int) {
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
            // Output (u, v) comes from source column x(v), row y(u). Work in 4×4 blocks:
            // four 8-byte loads (four samples each) from four source rows, a transpose in
            // registers, four 8-byte stores.
            let reverseX = orientation == .rotate270 || orientation == .antiTranspose  // x = w-1-v
            let reverseY = orientation == .rotate90 || orientation == .antiTranspose   // y = h-1-u
            let outWidth = height, outHeight = width
            let sourceRaw = UnsafeRawPointer(source), destinationRaw = UnsafeMutableRawPointer(destination)
            let sampleBytes = MemoryLayout<UInt16>.stride
            var v0 = 0
            while v0 + 4 <= outHeight {
                let column = reverseX ? width - 4 - v0 : v0
                var u0 = 0
                while u0 + 4 <= outWidth {
                    var block = Block4x4()
                    for i in 0..<4 {
                        let y = reverseY ? height - 1 - (u0 + i) : u0 + i
                        let word = UInt64(littleEndian: sourceRaw.loadUnaligned(
                            fromByteOffset: (y * sourceStride + column) * sampleBytes, as: UInt64.self))
                        block[i] = reverseX ? Block4x4.reversed(word) : word
                    }
                    block.transpose()
                    for k in 0..<4 {
                        destinationRaw.storeBytes(of: block[k].littleEndian,
                                                  toByteOffset: ((v0 + k) * destinationStride + u0) * sampleBytes, as: UInt64.self)
                    }
                    u0 += 4
                }
                for u in u0..<outWidth {   // the columns left over at the right edge
                    let row = source + (reverseY ? height - 1 - u : u) * sourceStride
                    for k in 0..<4 { destination[(v0 + k) * destinationStride + u] = row[reverseX ? width - 1 - (v0 + k) : v0 + k] }
                }
                v0 += 4
            }
            for v in v0..<outHeight {   // the rows left over at the bottom
                let x = reverseX ? width - 1 - v : v
                let out = destination + v * destinationStride
                for u in 0..<outWidth { out[u] = source[(reverseY ? height - 1 - u : u) * sourceStride + x] }
            }
        }
    }

    /// Four rows of four 16-bit samples (sample k of row i is element (i, k), in the
    /// little-endian lanes of a word), transposed in registers by swapping 2×2, then 1×1
    /// sub-blocks.
    struct Block4x4 {
        var rows: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

        subscript(i: Int) -> UInt64 {
            get { withUnsafeBytes(of: rows) { $0.load(fromByteOffset: i * 8, as: UInt64.self) } }
            set { withUnsafeMutableBytes(of: &rows) { $0.storeBytes(of: newValue, toByteOffset: i * 8, as: UInt64.self) } }
        }

        /// The four samples of a word in reverse order.
        static func reversed(_ word: UInt64) -> UInt64 {
            let swapped = word.byteSwapped
            return ((swapped & 0x00FF_00FF_00FF_00FF) << 8) | ((swapped >> 8) & 0x00FF_00FF_00FF_00FF)
        }

        mutating func transpose() {
            swap(distance: 2, shift: 32, mask: 0x0000_0000_FFFF_FFFF)
            swap(distance: 1, shift: 16, mask: 0x0000_FFFF_0000_FFFF)
        }

        /// Rows i and i+distance (i in the lower half of each group) trade the sub-blocks
        /// that lie across the diagonal.
        private mutating func swap(distance: Int, shift: UInt64, mask: UInt64) {
            var i = 0
            while i < 4 {
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
    static func blend(source: UnsafePointer<UInt16>, sourceStride: Int, destination: UnsafeMutablePointer<UInt16>,
                      destinationStride: Int, width: Int, height: Int, opacity: Double) {
        // 1/1024 steps: as fine as the samples.
        let weight = Int((opacity * 1024).rounded())
        if weight >= 1024 {
            for y in 0..<height {
                (destination + y * destinationStride).update(from: source + y * sourceStride, count: width)
            }
            return
        }
        if weight <= 0 { return }
        let inverse = 1024 - weight
        for y in 0..<height {
            let s = source + y * sourceStride, d = destination + y * destinationStride
            for x in 0..<width {
                d[x] = UInt16(truncatingIfNeeded: (Int(s[x]) * weight + Int(d[x]) * inverse + 512) >> 10)
            }
        }
    }

    /// Sets a `width × height` region to `value`.
    static func fill(_ destination: UnsafeMutablePointer<UInt16>, stride: Int, width: Int, height: Int, value: UInt16) {
        for y in 0..<height { (destination + y * stride).update(repeating: value, count: width) }
    }
}
