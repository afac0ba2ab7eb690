/// Which of an interlaced frame's two fields — its even lines (top) or its odd lines
/// (bottom) — was recorded, and is shown, first. Interlaced video (1080i camcorders, DV,
/// broadcast) records 50 or 59.94 fields a second; shown as whole frames, anything moving
/// is combed. A progressive track has no field order (nil where one is asked for).
public enum FieldOrder: String, Sendable, Hashable {
    case topFirst = "top first"
    case bottomFirst = "bottom first"
}
