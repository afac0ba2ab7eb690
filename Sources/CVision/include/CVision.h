// The OpenCV calls dropcut's reframing makes, behind a C interface: OpenCV is C++, and
// Swift imports C. One owner on the Swift side, `SubjectDetector` (Sources/Reframe),
// creates a detector, hands it 8-bit grey pictures and frees it. No C++ type and no
// exception crosses this header: every function catches and reports failure by its result.
#ifndef DROPCUT_CVISION_H
#define DROPCUT_CVISION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a box was found as.
typedef enum {
    CVISION_FACE = 1,
    CVISION_PERSON = 2,
    CVISION_MOTION = 3,
} cvision_kind;

/// A box in the picture's pixels, with the detector's confidence (faces: neighbour
/// count; people: SVM weight; motion: fraction of the picture moving).
typedef struct {
    float x, y, width, height, score;
    int kind;
} cvision_box;

/// A part of the picture to look in, pixels; width or height 0: the whole picture.
typedef struct {
    int x, y, width, height;
} cvision_region;

typedef struct cvision_detector cvision_detector;

/// Loads the face cascade at `face_cascade` (an OpenCV XML cascade, as opencv-data ships)
/// and the built-in HOG people detector. NULL on failure, with the reason in `error`.
cvision_detector *cvision_detector_create(const char *face_cascade, char *error, size_t error_size);
void cvision_detector_free(cvision_detector *detector);

/// Faces in `region` of the picture (LBP cascade), at least `min_size` pixels wide, in
/// the picture's pixels: how many were written to `out` (at most `capacity`), or -1 when
/// OpenCV failed.
int cvision_detect_faces(cvision_detector *detector, const uint8_t *gray, int width, int height, ptrdiff_t stride,
                         int min_size, cvision_region region, cvision_box *out, int capacity);

/// Standing people (HOG, 64x128 windows and up): as `cvision_detect_faces`.
int cvision_detect_people(cvision_detector *detector, const uint8_t *gray, int width, int height, ptrdiff_t stride,
                          cvision_box *out, int capacity);

/// Compares the picture with the one handed in before (same size): the regions that
/// moved, largest first (bounding boxes; score: the region's share of the picture), at
/// most `capacity`; 0 when nothing moved (or everything: the camera did) or there is no
/// earlier picture of this size, -1 when OpenCV failed.
int cvision_motion(cvision_detector *detector, const uint8_t *gray, int width, int height, ptrdiff_t stride,
                   cvision_box *out, int capacity);

/// The picture's 32-bin luma histogram, normalised to sum 1 (for finding cuts).
void cvision_histogram(const uint8_t *gray, int width, int height, ptrdiff_t stride, double histogram[32]);

#ifdef __cplusplus
}
#endif

#endif
