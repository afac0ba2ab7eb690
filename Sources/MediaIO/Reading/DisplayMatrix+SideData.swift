import DropcutTimeline

extension DisplayMatrix {
    /// A display matrix side-data entry as libavutil/display.h stores it — nine 32-bit
    /// numbers, whether a stream's (a movie's track) or a frame's (a JPEG's EXIF
    /// orientation) — read as it is; nil when `data` is missing or shorter than nine.
    init?(sideData data: UnsafeRawPointer?, size: Int) {
        guard let data, size >= 9 * MemoryLayout<Int32>.size else { return nil }
        let values = data.withMemoryRebound(to: Int32.self, capacity: 9) { Array(UnsafeBufferPointer(start: $0, count: 9)) }
        self.init(fixedPoint: values)
    }
}
