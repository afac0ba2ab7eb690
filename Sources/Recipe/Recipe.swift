// The Recipe module (YAML recipe model, validation, CompositionBuilder) arrives with the
// recipe-language issue. It exists now so the package's architecture is visible.
import Timeline
