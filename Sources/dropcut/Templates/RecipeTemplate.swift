/// The commented recipe `dropcut init` writes: the identity recipe's settings spelled out,
/// with a logo and a music bed to uncomment. It names no file, so it validates as written.
enum RecipeTemplate {
    static let text = """
        # A dropcut recipe, written by dropcut init (every key: docs/recipes.md; examples:
        # the recipes/ folder). Check it, see what it builds for a clip, render:
        #   dropcut validate recipe.yaml
        #   dropcut plan --recipe recipe.yaml clip.mov
        #   dropcut render --recipe recipe.yaml clip.mov
        version: 1
        output:
          filename: "{name}.dropcut.mp4"   # {name} = the clip's name without extension
          size: source                     # or width x height: 1080x1920
          fit: fit                         # fit letterboxes; fill crops to cover the frame
          video: { codec: h264, crf: 20, preset: veryfast, reencode: auto }   # auto: a stream needing no change is copied
          audio: { codec: aac, bitrate: 160k }
        orientation: auto                  # turn the picture upright as the phone's rotation flag says

        # A logo in the corner: logo.png beside this file or in an asset folder (--assets DIR).
        # overlays:
        #   - image: logo.png
        #     anchor: bottom-right
        #     margin: 4%                   # of the shorter side of the output
        #     width: 15%                   # of the output width
        #     opacity: 0.8

        # A music bed that dips whenever someone speaks.
        # music:
        #   source: bed.mp3
        #   gain: -10dB
        #   loop: true
        #   duck: { depth: -12dB, threshold: -30dBFS, attack: 0.2, release: 0.8 }

        """
}
