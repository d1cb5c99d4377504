/// A clock for the live page that a test can hold: the page's animations
/// read `performance.now`, and a test that must see one under way (or look
/// at its frames) holds the clock, so that the animation waits for the test
/// rather than the test racing the animation on a busy machine.
enum PageClock {
    /// Runs before the page's own script. `__holdNow()` stops the clock
    /// where it is and returns that instant (ms); `__setNow(ms)` sets the
    /// stopped clock; `__setNow(null)` lets it run again (an animation
    /// under way then jumps to where the real time puts it).
    static let script = #"""
    (() => {
      let now = null; const realNow = performance.now.bind(performance);
      performance.now = () => now === null ? realNow() : now;
      window.__holdNow = () => { now = realNow(); return now; };
      window.__setNow = (t) => { now = t; };
    })();
    """#
}

extension LivePageInBrowser {
    /// Moves the held clock from `start` in steps of `step` ms until the
    /// page's animation has ended (at most `steps` steps), and returns what
    /// `expression` gave after each step's frames. The clock stays held.
    func framesOfTheAnimation<T: Decodable>(from start: Double, step: Double = 50, steps: Int = 40, reading expression: String) throws -> [T] {
        var values: [T] = []
        for index in 1...steps {
            try page.run("__setNow(\(start + Double(index) * step))")
            try page.nextFrames()
            values.append(try page.value(expression))
            if try !page.value("tessera.animating", as: Bool.self) { break }
        }
        return values
    }
}
