// OpenCV's detectors for dropcut's reframing (CVision.h says why this is C++).
#include "CVision.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

struct cvision_detector {
    cv::CascadeClassifier faces;
    cv::HOGDescriptor people;
    cv::Mat previous;   // the last picture cvision_motion saw
    cv::Mat equalized, difference, mask, labels, stats, centroids;   // reused: no allocation per picture once sized
    std::vector<cv::Rect> rects;
    std::vector<int> neighbours;
    std::vector<double> weights;
};

static void report(char *error, size_t size, const char *message) {
    if (error && size > 0) std::snprintf(error, size, "%s", message);
}

extern "C" cvision_detector *cvision_detector_create(const char *face_cascade, char *error, size_t error_size) {
    try {
        auto *detector = new cvision_detector();
        if (!detector->faces.load(face_cascade)) {
            delete detector;
            report(error, error_size, "the face cascade could not be loaded");
            return nullptr;
        }
        detector->people.setSVMDetector(cv::HOGDescriptor::getDefaultPeopleDetector());
        return detector;
    } catch (const std::exception &e) {
        report(error, error_size, e.what());
        return nullptr;
    } catch (...) {
        report(error, error_size, "unknown OpenCV failure");
        return nullptr;
    }
}

extern "C" void cvision_detector_free(cvision_detector *detector) { delete detector; }

static cv::Mat wrap(const uint8_t *gray, int width, int height, ptrdiff_t stride) {
    return cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(gray), static_cast<size_t>(stride));
}

extern "C" int cvision_detect_faces(cvision_detector *detector, const uint8_t *gray, int width, int height, ptrdiff_t stride,
                                    int min_size, cvision_region region, cvision_box *out, int capacity) {
    try {
        cv::Rect whole(0, 0, width, height);
        cv::Rect roi = region.width > 0 && region.height > 0 ? cv::Rect(region.x, region.y, region.width, region.height) & whole : whole;
        if (roi.width < min_size || roi.height < min_size) return 0;
        cv::equalizeHist(wrap(gray, width, height, stride)(roi), detector->equalized);
        detector->rects.clear();
        detector->neighbours.clear();
        detector->faces.detectMultiScale(detector->equalized, detector->rects, detector->neighbours, 1.2, 3, 0,
                                         cv::Size(min_size, min_size));
        int count = 0;
        for (size_t i = 0; i < detector->rects.size() && count < capacity; i++) {
            const cv::Rect &r = detector->rects[i];
            float score = i < detector->neighbours.size() ? static_cast<float>(detector->neighbours[i]) : 1.0f;
            out[count++] = cvision_box{float(r.x + roi.x), float(r.y + roi.y), float(r.width), float(r.height), score, CVISION_FACE};
        }
        return count;
    } catch (...) {
        return -1;
    }
}

extern "C" int cvision_detect_people(cvision_detector *detector, const uint8_t *gray, int width, int height, ptrdiff_t stride,
                                     cvision_box *out, int capacity) {
    try {
        if (width < 64 || height < 128) return 0;
        detector->rects.clear();
        detector->weights.clear();
        detector->people.detectMultiScale(wrap(gray, width, height, stride), detector->rects, detector->weights, 0.3,
                                          cv::Size(8, 8), cv::Size(), 1.1, 2.0);
        int count = 0;
        for (size_t i = 0; i < detector->rects.size() && count < capacity; i++) {
            cv::Rect r = detector->rects[i] & cv::Rect(0, 0, width, height);
            if (r.width <= 0 || r.height <= 0) continue;
            float score = i < detector->weights.size() ? static_cast<float>(detector->weights[i]) : 1.0f;
            out[count++] = cvision_box{float(r.x), float(r.y), float(r.width), float(r.height), score, CVISION_PERSON};
        }
        return count;
    } catch (...) {
        return -1;
    }
}

extern "C" void cvision_histogram(const uint8_t *gray, int width, int height, ptrdiff_t stride, double histogram[32]) {
    uint32_t bins[32] = {0};
    for (int y = 0; y < height; y++) {
        const uint8_t *row = gray + y * stride;
        for (int x = 0; x < width; x++) bins[row[x] >> 3] += 1;
    }
    double total = double(width) * double(height);
    for (int i = 0; i < 32; i++) histogram[i] = total > 0 ? bins[i] / total : 0;
}

extern "C" int cvision_motion(cvision_detector *detector, const uint8_t *gray, int width, int height, ptrdiff_t stride,
                              cvision_box *out, int capacity) {
    try {
        cv::Mat picture = wrap(gray, width, height, stride);
        double total = double(width) * double(height);

        int found = 0;
        if (detector->previous.rows == height && detector->previous.cols == width) {
            cv::absdiff(picture, detector->previous, detector->difference);
            // 25 of 255: above sensor noise and compression flicker, below a person moving.
            cv::threshold(detector->difference, detector->mask, 25, 255, cv::THRESH_BINARY);
            double fraction = total > 0 ? cv::countNonZero(detector->mask) / total : 0;
            // Under 0.2 % of the picture: noise, not a subject. Over 60 %: the camera
            // moved or the light changed; the whole picture moving says nothing of where.
            if (fraction >= 0.002 && fraction <= 0.6) {
                // Moving regions (a person walking, not the mean of everyone): pixels
                // joined after closing the gaps a moving body's edges leave.
                cv::dilate(detector->mask, detector->mask, cv::Mat(), cv::Point(-1, -1), 2);
                int count = cv::connectedComponentsWithStats(detector->mask, detector->labels, detector->stats, detector->centroids, 8);
                // The largest regions first, each at least 0.1 % of the picture.
                while (found < capacity) {
                    int best = -1, bestArea = 0;
                    for (int i = 1; i < count; i++) {
                        int area = detector->stats.at<int>(i, cv::CC_STAT_AREA);
                        if (area > bestArea) { bestArea = area; best = i; }
                    }
                    if (best < 0 || bestArea < total * 0.001) break;
                    int *row = detector->stats.ptr<int>(best);
                    out[found++] = cvision_box{float(row[cv::CC_STAT_LEFT]), float(row[cv::CC_STAT_TOP]), float(row[cv::CC_STAT_WIDTH]),
                                               float(row[cv::CC_STAT_HEIGHT]), float(bestArea / total), CVISION_MOTION};
                    row[cv::CC_STAT_AREA] = 0;
                }
            }
        }
        picture.copyTo(detector->previous);
        return found;
    } catch (...) {
        return -1;
    }
}
