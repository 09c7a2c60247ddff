module example.com/monitor

go 1.18
