module example.com/heapwalk

go 1.22
