module example.com/allocations

go 1.23
