module example.com/ctxbench

go 1.22
