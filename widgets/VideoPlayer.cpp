#include "VideoPlayer.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "data/AvaDemoInput.h"
#include "data/VideoDecoder.h"

namespace amp::widgets {

namespace {
constexpr std::int64_t kChunk = 16;  // frames decoded per read while playing

QString clock(double seconds) {
  const int centis = static_cast<int>(std::lround(std::max(0.0, seconds) * 100));
  return QStringLiteral("%1:%2.%3")
      .arg(centis / 6000)
      .arg(centis / 100 % 60, 2, 10, QChar('0'))
      .arg(centis % 100, 2, 10, QChar('0'));
}
}  // namespace

VideoPlayer::VideoPlayer(QWidget* parent)
    : QWidget(parent),
      view_(new QLabel),
      playButton_(new QPushButton(tr("Play"))),
      backButton_(new QPushButton(QStringLiteral("◀"))),
      forwardButton_(new QPushButton(QStringLiteral("▶"))),
      slider_(new QSlider(Qt::Horizontal)),
      time_(new QLabel),
      timer_(new QTimer(this)) {
  view_->setAlignment(Qt::AlignCenter);
  view_->setMinimumSize(160, 120);
  view_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
  view_->setStyleSheet(QStringLiteral("background: black; color: #ddd"));
  for (QPushButton* b : {backButton_, forwardButton_})
    b->setFixedWidth(b->fontMetrics().horizontalAdvance(QStringLiteral("◀")) + 24);
  slider_->setMinimumWidth(120);
  backButton_->setToolTip(tr("Previous frame"));
  forwardButton_->setToolTip(tr("Next frame"));
  time_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* controls = new QHBoxLayout;
  controls->addWidget(playButton_);
  controls->addWidget(backButton_);
  controls->addWidget(forwardButton_);
  controls->addWidget(slider_, 1);
  controls->addWidget(time_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(view_, 1);
  layout->addLayout(controls);
  connect(playButton_, &QPushButton::clicked, this, [this] { playing() ? pause() : play(); });
  connect(backButton_, &QPushButton::clicked, this, [this] {
    pause();
    seek(frame_ - 1);
  });
  connect(forwardButton_, &QPushButton::clicked, this, [this] {
    pause();
    seek(frame_ + 1);
  });
  connect(slider_, &QSlider::valueChanged, this, [this](int v) { seek(v); });
  connect(timer_, &QTimer::timeout, this, [this] {
    if (frame_ + 1 >= frameCount() || !seek(frame_ + 1)) pause();
  });
  updateControls();
}

VideoPlayer::~VideoPlayer() = default;

std::int64_t VideoPlayer::frameCount() const {
  return input_ ? input_->frameCount() : 0;
}

double VideoPlayer::fps() const {
  return input_ ? input_->fps() : 0.0;
}

bool VideoPlayer::playing() const {
  return timer_->isActive();
}

bool VideoPlayer::open(const QString& path, QString* error) {
  pause();
  auto input = std::make_unique<data::AvaDemoInput>();
  std::string why;
  if (!input->open(path.toStdString(), 30.0, &why)) {
    if (error) *error = QString::fromStdString(why);
    return false;
  }
  if (input->frameCount() <= 0) {
    if (error) *error = tr("%1: no frames to show").arg(path);
    return false;
  }
  input_ = std::move(input);
  path_ = path;
  cache_.clear();
  frame_ = -1;
  {
    const QSignalBlocker block(slider_);
    slider_->setRange(0, static_cast<int>(frameCount() - 1));
  }
  const bool ok = seek(0);
  if (!ok && error) *error = view_->text();
  updateControls();
  return ok;
}

void VideoPlayer::play() {
  if (!input_) return;
  if (frame_ + 1 >= frameCount()) seek(0);  // from the start again after the end
  timer_->start(static_cast<int>(std::lround(1000.0 / std::max(1.0, fps()))));
  updateControls();
}

void VideoPlayer::pause() {
  timer_->stop();
  updateControls();
}

bool VideoPlayer::decodeFrom(std::int64_t frame, QString* error) {
  std::vector<std::int64_t> indices;
  for (std::int64_t f = frame; f < std::min(frameCount(), frame + kChunk); ++f)
    indices.push_back(f);
  data::DecodedClip clip;
  std::string why;
  if (!input_->read(indices, clip, &why)) {
    if (error) *error = QString::fromStdString(why);
    return false;
  }
  if (cache_.size() > 4 * kChunk) cache_.clear();  // playing forward: older frames are done
  for (std::size_t i = 0; i < indices.size(); ++i)
    cache_[indices[i]] = QImage(clip.frame(i), clip.width, clip.height, clip.width * 3,
                                QImage::Format_BGR888)
                             .copy();  // B, G, R as the reader gives them; the clip goes away
  return true;
}

bool VideoPlayer::seek(std::int64_t frame) {
  if (!input_) return false;
  frame = std::clamp<std::int64_t>(frame, 0, frameCount() - 1);
  if (frame == frame_) return true;
  if (!cache_.count(frame)) {
    QString why;
    if (!decodeFrom(frame, &why)) {
      timer_->stop();
      view_->setText(why);
      updateControls();
      return false;
    }
  }
  frame_ = frame;
  image_ = cache_.at(frame);
  showImage();
  {
    const QSignalBlocker block(slider_);
    slider_->setValue(static_cast<int>(frame));
  }
  updateControls();
  emit frameShown(frame);
  return true;
}

void VideoPlayer::showImage() {
  if (image_.isNull()) return;
  view_->setPixmap(QPixmap::fromImage(
      image_.scaled(view_->size(), Qt::KeepAspectRatio, Qt::SmoothTransformation)));
}

void VideoPlayer::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  showImage();
}

void VideoPlayer::updateControls() {
  const bool open = input_ != nullptr;
  playButton_->setEnabled(open);
  backButton_->setEnabled(open && frame_ > 0);
  forwardButton_->setEnabled(open && frame_ + 1 < frameCount());
  slider_->setEnabled(open);
  playButton_->setText(playing() ? tr("Pause") : tr("Play"));
  const double rate = std::max(1e-9, fps());
  time_->setText(open ? tr("%1 / %2  ·  frame %3 of %4")
                            .arg(clock(static_cast<double>(frame_) / rate))
                            .arg(clock(static_cast<double>(frameCount()) / rate))
                            .arg(frame_ + 1)
                            .arg(frameCount())
                      : QString());
}

}  // namespace amp::widgets
