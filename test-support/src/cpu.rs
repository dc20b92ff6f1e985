//! Time bounds for tests that check an input cannot make a call slow (a quadratic loop, a
//! hang): the CPU time of the calling thread, not the wall clock, so a bound holds however
//! busy the machine is (other tests, other builds on the same cores).

use std::time::{Duration, Instant};

/// The CPU time the calling thread has used so far: user + system time from
/// `/proc/thread-self/stat` (fields 14 and 15, in clock ticks of 1/100 s: Linux's `USER_HZ`).
/// `None` where that file does not exist (not Linux).
fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: fields count from
    // after its closing parenthesis, which is field 3 (the state).
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let utime: u64 = fields.nth(11)?.parse().ok()?; // field 14
    let stime: u64 = fields.next()?.parse().ok()?; // field 15
    Some(Duration::from_millis((utime + stime) * 10))
}

/// A stopwatch of the calling thread's CPU time (the wall clock where the thread's CPU time
/// cannot be read). Its resolution is 10 ms: bound seconds with it, not microseconds.
#[derive(Debug, Clone, Copy)]
pub struct CpuTimer {
    cpu: Option<Duration>,
    wall: Instant,
}

impl CpuTimer {
    /// Starts the stopwatch.
    pub fn start() -> Self {
        CpuTimer {
            cpu: thread_cpu(),
            wall: Instant::now(),
        }
    }

    /// The calling thread's CPU time since [`CpuTimer::start`] (wall time where it cannot be
    /// read). Call it from the thread that started the timer.
    pub fn elapsed(&self) -> Duration {
        match (self.cpu, thread_cpu()) {
            (Some(then), Some(now)) => now.saturating_sub(then),
            _ => self.wall.elapsed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_this_threads_work_not_its_sleep() {
        let t = CpuTimer::start();
        std::thread::sleep(Duration::from_millis(300));
        if thread_cpu().is_some() {
            assert!(
                t.elapsed() < Duration::from_millis(100),
                "{:?}",
                t.elapsed()
            );
        }
        let spin = Instant::now();
        let mut x = 0u64;
        while spin.elapsed() < Duration::from_millis(300) {
            x = x.wrapping_add(std::hint::black_box(1));
        }
        assert!(x > 0);
        assert!(
            t.elapsed() >= Duration::from_millis(50),
            "{:?}",
            t.elapsed()
        );
    }
}
