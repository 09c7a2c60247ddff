module example.com/bench

go 1.21
