#pragma once
// A small player for the videos the studio writes (the demo's output): frames come from the
// engine's decoder (data/AvaDemoInput: a video file or a folder of frames), shown scaled to the
// widget with play / pause, a frame slider, single-frame steps and the time. No QtMultimedia:
// Debian's Qt has it as an extra dependency, and the decoder already reads every file the demo
// writes, frame-exact.
//
//   auto* player = new VideoPlayer;
//   QString error;
//   if (!player->open("demo.mp4", &error)) return fail(error);
//   player->play();  // at the file's frame rate; pause(), seek(frame) and stepping work too
#include <QImage>
#include <QWidget>

#include <cstdint>
#include <map>
#include <memory>

class QLabel;
class QPushButton;
class QSlider;
class QTimer;

namespace amp::data {
class AvaDemoInput;
}

namespace amp::widgets {

class VideoPlayer : public QWidget {
  Q_OBJECT
 public:
  explicit VideoPlayer(QWidget* parent = nullptr);
  ~VideoPlayer() override;

  /// Opens `path` and shows its first frame. False with `error` naming the file.
  bool open(const QString& path, QString* error);
  QString path() const { return path_; }
  std::int64_t frameCount() const;
  double fps() const;
  std::int64_t frame() const { return frame_; }
  /// The frame on screen at its own size (null before a file is open).
  const QImage& image() const { return image_; }
  bool playing() const;

  void play();
  void pause();
  /// Shows `frame` (clamped to the video); false with the reason in the status line when the
  /// frame cannot be decoded.
  bool seek(std::int64_t frame);

 signals:
  void frameShown(std::int64_t frame);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void showImage();
  void updateControls();
  /// Decodes the frames from `frame` on (a few at a time: playing reads ahead).
  bool decodeFrom(std::int64_t frame, QString* error);

  std::unique_ptr<data::AvaDemoInput> input_;
  std::map<std::int64_t, QImage> cache_;
  QString path_;
  std::int64_t frame_ = -1;
  QImage image_;
  QLabel* view_;
  QPushButton* playButton_;
  QPushButton* backButton_;
  QPushButton* forwardButton_;
  QSlider* slider_;
  QLabel* time_;
  QTimer* timer_;
};

}  // namespace amp::widgets
