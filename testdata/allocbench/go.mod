module example.com/allocbench

go 1.22
