#include "http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/text.h"
#include "heap.h"

namespace preflight::cli {

namespace {

using Clock = std::chrono::steady_clock;

thread_local const RequestBudget* t_budget = nullptr;

struct Peer {
  std::string remote_ip, local_ip;
  int remote_port = 0, local_port = 0;
};

void address_of(const sockaddr_storage& a, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    port = ntohs(v4->sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    port = ntohs(v6->sin6_port);
  }
  ip = text;
}

Peer peer_of(int fd) {
  Peer p;
  sockaddr_storage a{};
  socklen_t n = sizeof a;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&a), &n) == 0) address_of(a, p.remote_ip, p.remote_port);
  n = sizeof a;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n) == 0) address_of(a, p.local_ip, p.local_port);
  return p;
}

// The reason phrases of the statuses the connection layer answers itself.
const char* reason(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 408:
      return "Request Timeout";
    case 405:
      return "Method Not Allowed";
    case 411:
      return "Length Required";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

// A response the connection layer writes itself (the request never reached a
// handler): the API's JSON error shape, and the connection is closed after it.
std::string raw_response(int status, const std::string& message, const std::string& extra_headers = "") {
  const std::string body = nlohmann::json{{"error", message}, {"status", status}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
  return fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nCache-Control: no-store\r\n"
      "X-Preflight-Exit-Code: 2\r\n{}Connection: close\r\n\r\n{}",
      status, reason(status), body.size(), extra_headers, body);
}

// One complete request as httplib's Stream. What process_request writes goes
// straight to the socket while the socket takes it without blocking (the I/O
// loop does not touch a connection while a worker has it); the rest is kept in
// `output` for the loop to write.
class BufferedStream final : public httplib::Stream {
 public:
  BufferedStream(std::string_view request, int fd, const Peer& peer, std::chrono::milliseconds write_wait)
      : in_(request), fd_(fd), peer_(peer), write_wait_(write_wait) {}
  static constexpr size_t kMaxHandedOff = 1024 * 1024;

  bool is_readable() const override { return pos_ < in_.size(); }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    const size_t n = std::min(size, in_.size() - pos_);
    std::memcpy(ptr, in_.data() + pos_, n);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }
  // Sends what the socket takes. A response's unsent tail is handed to the I/O
  // loop when it is small; beyond kMaxHandedOff the worker itself waits for the
  // client to read (at most `write_wait` without progress, then the connection
  // fails), so an answer is never copied whole and held for a client that does
  // not read: memory is bounded by the workers, not by the connections.
  ssize_t write(const char* ptr, size_t size) override {
    const auto whole = static_cast<ssize_t>(size);
    while (!failed_ && output_.empty() && size > 0) {
      const ssize_t sent = ::send(fd_, ptr, size, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (sent > 0) {
        ptr += sent;
        size -= static_cast<size_t>(sent);
        continue;
      }
      if (sent < 0 && errno == EINTR) continue;
      if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        failed_ = true;  // the peer is gone: nothing more to send
        break;
      }
      if (size <= kMaxHandedOff) break;
      pollfd p{fd_, POLLOUT, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(write_wait_.count()));
      if (ready == 0 || (ready > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL)) != 0)) failed_ = true;
    }
    if (!failed_) output_.append(ptr, size);
    return whole;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = peer_.remote_ip;
    port = peer_.remote_port;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = peer_.local_ip;
    port = peer_.local_port;
  }
  // httplib compares it with FD_SETSIZE only; all I/O goes through read/write above.
  socket_t socket() const override { return 0; }

  std::string take_output() { return std::move(output_); }
  bool failed() const { return failed_; }

 private:
  std::string_view in_;
  size_t pos_ = 0;
  int fd_;
  const Peer& peer_;
  std::string output_;
  bool failed_ = false;
  std::chrono::milliseconds write_wait_;
};

// ASCII case-insensitive prefix test for header names.
bool header_is(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  return true;
}

std::string_view header_value(std::string_view line, std::string_view name) {
  auto v = line.substr(name.size() + 1);
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

enum class State { reading, working, writing, lingering };

struct Conn {
  std::uint64_t id = 0;
  bool over_limit = false;  // accepted past max_connections: answered 503, then closed
  size_t accounted = 0;     // c.in's capacity as last counted in Loop::buffered_in
  int fd = -1;
  Peer peer;
  State state = State::reading;
  std::string in;
  size_t scanned = 0;  // where the search for the end of the head resumes
  bool request_started = false;
  bool continue_sent = false;
  std::string out;
  size_t out_pos = 0;
  bool close_after_write = false;
  bool linger_after_write = false;
  bool peer_gone = false;  // the peer closed while a worker had the request
  Clock::time_point deadline{};
  std::shared_ptr<RequestBudget> budget;
};

struct Job {
  std::uint64_t conn_id = 0;
  int fd = -1;
  std::string request;
  Peer peer;
  std::shared_ptr<RequestBudget> budget;
};

struct Done {
  std::uint64_t conn_id = 0;
  std::string output;
  bool close = false;
};

constexpr std::uint64_t kWakeId = 0;
constexpr size_t kReadChunk = 64 * 1024;
// The longest line httplib reads (CPPHTTPLIB_HEADER_MAX_LENGTH's default); longer is 431 here.
constexpr size_t kMaxHeaderLine = 8192;
constexpr size_t kTrimAbove = 8 * 1024 * 1024;  // give large response buffers back to the system

}  // namespace

struct GuardedServer::Loop {
  Loop(GuardedServer& s, ConnectionLimits l) : server(s), limits(std::move(l)) {}

  GuardedServer& server;
  ConnectionLimits limits;
  int epoll_fd = -1;
  int wake_fd = -1;
  std::atomic<bool> stopping{false};
  std::atomic<size_t> open{0};

  std::mutex handoff_mutex;                    // incoming sockets and finished responses
  std::vector<std::pair<int, bool>> incoming;  // a socket, and whether it came over the connection limit
  std::atomic<size_t> refusing{0};             // over-limit connections being answered 503
  std::vector<Done> done;

  std::mutex job_mutex;
  std::condition_variable job_ready;
  std::deque<Job> light_jobs;  // cheap requests: every worker takes these first
  std::deque<Job> heavy_jobs;  // expensive ones: the general workers only

  std::unordered_map<std::uint64_t, Conn> conns;  // the I/O thread's alone
  // Request bytes held across every connection (capacity of their buffers): at
  // most max_buffered_bytes, so 512 connections each sending most of a 4 MiB
  // body cannot hold 2 GB. A connection that would pass it gets 503.
  size_t buffered_in = 0;
  void account(Conn& c) {
    buffered_in = buffered_in - c.accounted + c.in.capacity();
    c.accounted = c.in.capacity();
  }
  std::uint64_t next_id = 1;
  std::thread io;
  std::vector<std::thread> workers;

  void wake() {
    const std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(wake_fd, &one, sizeof one);
  }

  void watch(Conn& c, std::uint32_t events, int op = EPOLL_CTL_MOD) {
    epoll_event e{};
    e.events = events;
    e.data.u64 = c.id;
    epoll_ctl(epoll_fd, op, c.fd, &e);
  }

  // Called on httplib's accept thread.
  // Over the limit, a connection is still answered 503 by the loop, which
  // drains what the client sent before closing: closing a socket with unread
  // bytes sends a reset, and the client would see that, not the 503. At most
  // kOverLimit such connections linger at once; beyond them, send and close.
  static constexpr size_t kOverLimit = 64;
  void adopt(int fd) {
    const bool over = open.load() >= limits.max_connections;
    if (over && refusing.load() >= kOverLimit) {
      const auto busy = raw_response(
          503, fmt::format("the server has {} connections open, its limit; try again", limits.max_connections));
      [[maybe_unused]] auto n = ::send(fd, busy.data(), busy.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      ::shutdown(fd, SHUT_WR);
      ::close(fd);
      return;
    }
    if (over)
      ++refusing;
    else
      ++open;
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    {
      std::lock_guard<std::mutex> lock(handoff_mutex);
      incoming.emplace_back(fd, over);
    }
    wake();
  }

  void close_conn(Conn& c) {
    buffered_in -= c.accounted;
    c.accounted = 0;
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
    ::close(c.fd);
    if (c.over_limit)
      --refusing;
    else
      --open;
    const bool big = c.out.capacity() > kTrimAbove || c.in.capacity() > kTrimAbove;
    conns.erase(c.id);
    if (big) return_freed_memory();
  }

  // Answers without a handler and closes after draining what the client still sends.
  void refuse(Conn& c, int status, const std::string& message, const std::string& extra_headers = "") {
    c.in.clear();
    c.in.shrink_to_fit();
    account(c);
    c.out = raw_response(status, message, extra_headers);
    c.out_pos = 0;
    c.close_after_write = true;
    c.linger_after_write = true;
    start_writing(c);
  }

  void start_writing(Conn& c) {
    c.state = State::writing;
    c.deadline = Clock::now() + limits.write;
    watch(c, EPOLLOUT);
    write_some(c);
  }

  void write_some(Conn& c) {
    while (c.out_pos < c.out.size()) {
      const ssize_t n = ::send(c.fd, c.out.data() + c.out_pos, c.out.size() - c.out_pos, MSG_NOSIGNAL);
      if (n > 0) {
        c.out_pos += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
      close_conn(c);
      return;
    }
    const bool big = c.out.capacity() > kTrimAbove;
    std::string().swap(c.out);
    c.out_pos = 0;
    if (big) return_freed_memory();
    if (c.linger_after_write) {
      ::shutdown(c.fd, SHUT_WR);
      c.state = State::lingering;
      c.deadline = Clock::now() + limits.linger;
      watch(c, EPOLLIN | EPOLLRDHUP);
      return;
    }
    if (c.close_after_write) {
      close_conn(c);
      return;
    }
    c.state = State::reading;
    watch(c, EPOLLIN | EPOLLRDHUP);
    advance(c);  // a pipelined request may be waiting already
  }

  void read_some(Conn& c) {
    char buffer[kReadChunk];
    const size_t cap = limits.max_header_bytes + limits.max_body_bytes + kReadChunk;
    while (c.in.size() < cap) {
      const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
      if (n > 0) {
        if (c.state == State::lingering) continue;  // drained and dropped
        if (buffered_in + static_cast<size_t>(n) > limits.max_buffered_bytes && c.in.size() + n > kReadChunk) {
          account(c);
          refuse(c, 503, "the server is receiving too many request bodies at once; try again");
          return;
        }
        c.in.append(buffer, static_cast<size_t>(n));
        account(c);
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
      close_conn(c);  // the peer closed (n == 0) or failed
      return;
    }
    if (c.state == State::reading) advance(c);
  }

  // Looks for a whole request in c.in; dispatches it, refuses it, or waits.
  void advance(Conn& c) {
    const auto now = Clock::now();
    if (c.in.empty()) {
      c.request_started = false;
      c.scanned = 0;
      c.deadline = now + limits.idle;
      return;
    }
    if (!c.request_started) {
      c.request_started = true;
      c.deadline = now + limits.request_read;
    }
    const size_t from = c.scanned >= 3 ? c.scanned - 3 : 0;
    const size_t end = c.in.find("\r\n\r\n", from);
    if (end == std::string::npos) {
      c.scanned = c.in.size();
      if (c.in.size() > limits.max_header_bytes)
        refuse(c, 431, fmt::format("the request line and headers exceed {} bytes", limits.max_header_bytes));
      return;
    }
    const size_t head = end + 4;
    if (head > limits.max_header_bytes) {
      refuse(c, 431, fmt::format("the request line and headers exceed {} bytes", limits.max_header_bytes));
      return;
    }
    // What httplib would answer 400 is answered here by its proper status, and
    // the connection closes: a method it does not know (405, with the methods
    // this server takes) and a header line longer than httplib reads (431).
    {
      const auto line_end = c.in.find("\r\n");
      const std::string_view request_line(c.in.data(), line_end);
      const auto method = request_line.substr(0, request_line.find(' '));
      static constexpr std::string_view kKnown[] = {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"};
      if (std::find(std::begin(kKnown), std::end(kKnown), method) == std::end(kKnown)) {
        refuse(c, 405, fmt::format("the method {} is not allowed (allowed: GET, HEAD, POST)", echo(method, 16)),
               "Allow: GET, HEAD, POST\r\n");
        return;
      }
      for (size_t at = 0; at < end;) {
        const size_t next = std::min(c.in.find("\r\n", at), end);
        if (next - at > kMaxHeaderLine) {
          refuse(c, 431, fmt::format("a request header line exceeds {} bytes", kMaxHeaderLine));
          return;
        }
        at = next + 2;
      }
    }
    size_t body = 0;
    bool has_length = false, expect_continue = false;
    size_t expect_begin = 0, expect_end = 0;
    for (size_t line = c.in.find("\r\n") + 2; line < end;) {
      const size_t line_end = c.in.find("\r\n", line);
      const std::string_view text(c.in.data() + line, line_end - line);
      if (header_is(text, "transfer-encoding")) {
        refuse(c, 411, "send the body with a Content-Length header (chunked request bodies are not accepted)");
        return;
      }
      if (header_is(text, "content-length")) {
        const auto v = header_value(text, "content-length");
        size_t n = 0;
        bool digits = !v.empty() && v.size() <= 18;
        for (char ch : v) {
          if (ch < '0' || ch > '9')
            digits = false;
          else
            n = n * 10 + static_cast<size_t>(ch - '0');
        }
        if (!digits || (has_length && n != body)) {
          refuse(c, 400, "the Content-Length header is not one whole number");
          return;
        }
        has_length = true;
        body = n;
      }
      if (header_is(text, "expect")) {
        expect_continue = true;
        expect_begin = line;
        expect_end = line_end + 2;
      }
      line = line_end + 2;
    }
    if (body > limits.max_body_bytes) {
      refuse(c, 400, fmt::format("request body exceeds the {} byte limit (--max-body)", limits.max_body_bytes));
      return;
    }
    if (c.in.size() < head + body) {
      if (expect_continue && !c.continue_sent) {
        static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
        [[maybe_unused]] auto n = ::send(c.fd, kContinue.data(), kContinue.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        c.continue_sent = true;
      }
      return;
    }
    std::string request = c.in.substr(0, head + body);
    c.in.erase(0, head + body);
    if (c.in.capacity() > 4 * kReadChunk && c.in.size() < kReadChunk)
      c.in.shrink_to_fit();  // an idle keep-alive holds no body
    account(c);
    // The 100 Continue (when needed) came from here: httplib must not send another.
    if (expect_continue) request.erase(expect_begin, expect_end - expect_begin);
    c.scanned = 0;
    c.request_started = false;
    c.continue_sent = false;
    dispatch(c, std::move(request));
  }

  void dispatch(Conn& c, std::string request) {
    auto budget = std::make_shared<RequestBudget>();
    budget->deadline = Clock::now() + limits.deadline;
    budget->deadline_text = limits.deadline_text;
    const bool heavy = limits.heavy && limits.heavy(request);
    {
      std::lock_guard<std::mutex> lock(job_mutex);
      const auto waiting = light_jobs.size() + heavy_jobs.size();
      if (waiting >= limits.max_queued) {
        refuse(c, 503, fmt::format("the server is busy: {} requests are waiting for a worker; try again", waiting));
        return;
      }
      (heavy ? heavy_jobs : light_jobs).push_back(Job{c.id, c.fd, std::move(request), c.peer, budget});
    }
    // Every waiting worker looks: a light-only worker woken for a heavy job would leave it unseen.
    job_ready.notify_all();
    c.budget = std::move(budget);
    c.state = State::working;
    watch(c, EPOLLRDHUP);
  }

  void finish(Done d) {
    const auto it = conns.find(d.conn_id);
    if (it == conns.end()) return;
    Conn& c = it->second;
    c.budget.reset();
    if (c.peer_gone) {
      close_conn(c);
      return;
    }
    c.out = std::move(d.output);
    c.out_pos = 0;
    c.close_after_write = d.close;
    start_writing(c);
  }

  void on_event(std::uint64_t id, std::uint32_t events) {
    const auto it = conns.find(id);
    if (it == conns.end()) return;  // closed earlier in this batch
    Conn& c = it->second;
    switch (c.state) {
      case State::working:
        // The peer closed its end while the request is worked on: stop the work
        // at its next budget check; the socket closes when the worker is done.
        if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
          c.peer_gone = true;
          if (c.budget) c.budget->client_gone = true;
          epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
        }
        return;
      case State::writing:
        if (events & (EPOLLHUP | EPOLLERR))
          close_conn(c);
        else
          write_some(c);
        return;
      case State::reading:
      case State::lingering:
        read_some(c);
        return;
    }
  }

  void take_handoffs() {
    std::uint64_t count = 0;
    [[maybe_unused]] auto n = ::read(wake_fd, &count, sizeof count);
    std::vector<std::pair<int, bool>> fresh;
    std::vector<Done> finished;
    {
      std::lock_guard<std::mutex> lock(handoff_mutex);
      fresh.swap(incoming);
      finished.swap(done);
    }
    for (const auto& [fd, over_limit] : fresh) {
      Conn c;
      c.id = next_id++;
      c.fd = fd;
      c.peer = peer_of(fd);
      c.over_limit = over_limit;
      c.deadline = Clock::now() + limits.idle;
      auto& stored = conns.emplace(c.id, std::move(c)).first->second;
      watch(stored, EPOLLIN | EPOLLRDHUP, EPOLL_CTL_ADD);
      if (over_limit)
        refuse(stored, 503,
               fmt::format("the server has {} connections open, its limit; try again", limits.max_connections));
    }
    for (auto& d : finished) finish(std::move(d));
  }

  void expire() {
    const auto now = Clock::now();
    std::vector<std::uint64_t> late;
    for (const auto& [id, c] : conns)
      if (c.state != State::working && now >= c.deadline) late.push_back(id);
    for (auto id : late) {
      auto it = conns.find(id);
      if (it == conns.end()) continue;
      Conn& c = it->second;
      if (c.state == State::reading && c.request_started)
        refuse(c, 408, fmt::format("the request did not arrive whole within {} ms", limits.request_read.count()));
      else
        close_conn(c);  // idle keep-alive, a response not taken in time, or the linger is over
    }
  }

  void run_io() {
    std::vector<epoll_event> events(256);
    while (!stopping.load()) {
      const int n = epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), 100);
      for (int i = 0; i < n; ++i) {
        if (events[i].data.u64 == kWakeId)
          take_handoffs();
        else
          on_event(events[i].data.u64, events[i].events);
      }
      expire();
    }
    for (auto& [id, c] : conns) ::close(c.fd);
    conns.clear();
  }

  void run_worker(bool light_only) {
    while (true) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(job_mutex);
        job_ready.wait(lock,
                       [&] { return stopping.load() || !light_jobs.empty() || (!light_only && !heavy_jobs.empty()); });
        if (stopping.load()) return;
        auto& from = !light_jobs.empty() ? light_jobs : heavy_jobs;
        job = std::move(from.front());
        from.pop_front();
      }
      BufferedStream stream(job.request, job.fd, job.peer, limits.write);
      bool closed = false;
      bool ok = false;
      t_budget = job.budget.get();
      try {
        ok = server.process_request(stream, false, closed, nullptr);
      } catch (...) {
        ok = false;  // httplib reports handler exceptions itself; anything else ends the connection
      }
      t_budget = nullptr;
      Done d{job.conn_id, stream.take_output(), closed || !ok || stream.failed()};
      {
        std::lock_guard<std::mutex> lock(handoff_mutex);
        done.push_back(std::move(d));
      }
      wake();
    }
  }

  void start() {
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.u64 = kWakeId;
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &e);
    io = std::thread([this] { run_io(); });
    for (unsigned i = 0; i < std::max(1u, limits.workers); ++i) workers.emplace_back([this] { run_worker(false); });
    if (limits.heavy)
      for (unsigned i = 0; i < limits.light_workers; ++i) workers.emplace_back([this] { run_worker(true); });
  }

  void stop() {
    if (stopping.exchange(true)) return;
    wake();
    job_ready.notify_all();
    if (io.joinable()) io.join();
    for (auto& w : workers)
      if (w.joinable()) w.join();
    if (epoll_fd >= 0) ::close(epoll_fd);
    if (wake_fd >= 0) ::close(wake_fd);
  }
};

GuardedServer::GuardedServer(ConnectionLimits limits) : loop_(std::make_unique<Loop>(*this, std::move(limits))) {
  // Accepting only hands the socket over: one thread is plenty.
  new_task_queue = [] { return new httplib::ThreadPool(1); };
  set_payload_max_length(loop_->limits.max_body_bytes);
  set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
}

GuardedServer::~GuardedServer() { loop_->stop(); }

namespace {

// Why host:port cannot be bound, as an errno value (0: it can), found with a
// socket of our own: httplib reports only failure. EADDRINUSE names the port,
// EADDRNOTAVAIL or a failed lookup (EHOSTUNREACH here) the host.
int bind_problem(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || found == nullptr)
    return EHOSTUNREACH;
  int problem = EADDRNOTAVAIL;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    problem = ::bind(fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
    ::close(fd);
    if (problem == 0) break;
  }
  freeaddrinfo(found);
  return problem;
}

}  // namespace

namespace {

// httplib listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, fixed in the
// Debian library's build): a burst of clients beyond it has its SYNs dropped and
// retried a second later. Linux takes a second listen() on a listening socket as
// a new backlog; the socket is the one of this process listening on `port`.
void widen_backlog(int port) {
  for (int fd = 3; fd < 1024; ++fd) {
    int listening = 0;
    socklen_t size = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0 || listening == 0) continue;
    sockaddr_storage a{};
    socklen_t n = sizeof a;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n) != 0) continue;
    std::string ip;
    int bound = 0;
    address_of(a, ip, bound);
    if (bound == port) ::listen(fd, SOMAXCONN);
  }
}

}  // namespace

int GuardedServer::bind(const std::string& host, int port) {
  if (const int problem = bind_problem(host, port); problem != 0) return -problem;
  if (port == 0) {
    const int bound = bind_to_any_port(host);
    if (bound > 0) widen_backlog(bound);
    return bound > 0 ? bound : -EADDRNOTAVAIL;
  }
  if (!bind_to_port(host, port)) return -EADDRINUSE;  // taken since the probe
  widen_backlog(port);
  return port;
}

bool GuardedServer::serve() {
  loop_->start();
  const bool ok = listen_after_bind();
  loop_->stop();
  return ok;
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  loop_->adopt(sock);
  return true;
}

const RequestBudget* current_request_budget() { return t_budget; }

}  // namespace preflight::cli
