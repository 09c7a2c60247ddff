module example.com/panicked

go 1.21
