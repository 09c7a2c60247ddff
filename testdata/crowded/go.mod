module example.com/crowded

go 1.21
