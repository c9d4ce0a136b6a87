#include "checkpoint/PickleBudget.h"

#include <functional>
#include <string>

#include "checkpoint/Pickle.h"

namespace amp::checkpoint {

namespace detail {

namespace {
thread_local std::vector<std::weak_ptr<PyObj>>* tlsMade = nullptr;
thread_local Budget* tlsBudget = nullptr;

std::string tooMuch(std::size_t count, const char* what, std::size_t read) {
  return "makes more than " + std::to_string(count) + " " + what + " from its first " +
         std::to_string(read) +
         " bytes, far more than any checkpoint; refused (a pickle built to exhaust memory)";
}

void forEachChild(const PyObj& o, const std::function<void(const PyRef&)>& f) {
  for (const auto& x : o.items) f(x);
  for (const auto& [k, v] : o.dict) {
    f(k);
    f(v);
  }
  if (o.state) f(o.state);
}
}  // namespace

void Budget::object() {
  if (++objects > read() / 2 + kAllowance)
    throw PickleError(tooMuch(objects - 1, "objects", read()));
}

void Budget::charge(std::size_t c, std::size_t b) {
  cells += c;
  bytes += b;
  if (cells > 2 * read() + kAllowance)
    throw PickleError(tooMuch(cells - c, "container slots", read()));
  if (bytes > 8 * read() + kByteAllowance)
    throw PickleError(tooMuch(bytes - b, "bytes of data", read()));
}

PyRef fresh(PyObj::Kind kind, std::size_t bytes) {
  if (tlsBudget) {
    tlsBudget->object();
    if (bytes) tlsBudget->charge(0, bytes);
  }
  auto o = std::make_shared<PyObj>();
  o->kind = kind;
  return o;
}

PyRef made(PyRef o) {
  if (tlsMade) tlsMade->push_back(o);
  return o;
}

PyRef shared(PyObj::Kind kind, bool b, std::int64_t i) {
  auto o = std::make_shared<PyObj>();
  o->kind = kind;
  o->b = b;
  o->i = i;
  return o;
}

MadeScope::MadeScope(const std::size_t& pos)
    : outer(tlsMade), budget{&pos, pos}, outerBudget(tlsBudget) {
  tlsMade = &made;
  tlsBudget = &budget;
}

MadeScope::~MadeScope() {
  tlsMade = outer;
  tlsBudget = outerBudget;
}

bool reachesACycle(const PyRef& root, std::unordered_set<const PyObj*>& reached) {
  std::unordered_set<const PyObj*> onPath;
  struct Frame {
    const PyObj* obj;
    std::vector<const PyObj*> children;
    std::size_t next = 0;
  };
  std::vector<Frame> path;
  auto enter = [&](const PyObj* o) {
    reached.insert(o);
    onPath.insert(o);
    Frame f{o, {}, 0};
    forEachChild(*o, [&](const PyRef& c) {
      if (c) f.children.push_back(c.get());
    });
    path.push_back(std::move(f));
  };
  if (!root) return false;
  enter(root.get());
  while (!path.empty()) {
    Frame& top = path.back();
    if (top.next == top.children.size()) {
      onPath.erase(top.obj);
      path.pop_back();
      continue;
    }
    const PyObj* c = top.children[top.next++];
    if (onPath.count(c)) return true;
    if (!reached.count(c)) enter(c);
  }
  return false;
}

void breakCycles(std::vector<std::weak_ptr<PyObj>>& made,
                 const std::unordered_set<const PyObj*>& keep) {
  for (auto& w : made)
    if (PyRef o = w.lock(); o && !keep.count(o.get())) {
      o->items.clear();
      o->dict.clear();
      o->state.reset();
    }
}

}  // namespace detail

void chargeUnpickle(std::size_t cells, std::size_t bytes) {
  if (detail::tlsBudget) detail::tlsBudget->charge(cells, bytes);
}

}  // namespace amp::checkpoint
