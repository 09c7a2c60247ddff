module example.com/unfinished

go 1.21
