// The Render module (ExportSession, compositor, mixer) arrives with the render-engine issue.
// It exists now so the package's architecture is visible from the start.
import Timeline
