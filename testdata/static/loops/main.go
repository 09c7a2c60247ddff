// Command loops calls functions at known loop depths, for static's
// calls.loop_depth (TestLoopDepth).
package main

func f(i int) int { return i + 1 }

func g(i int) bool { return i < 3 }

func h() []int { return []int{1, 2} }

func main() {
	s := f(0)                        // depth 0
	for i := f(1); g(i); i += f(2) { // init once: 0; cond and post: 1
		s += f(i)               // 1
		for _, v := range h() { // the range expression once: 1
			s += f(v) // 2
			func() {
				s += f(v) // a literal's own body: 0
			}()
		}
	}
	defer f(s) // 0
	for range 2 {
		go f(s) // 1
	}
}
