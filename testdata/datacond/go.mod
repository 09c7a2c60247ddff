module example.com/datacond

go 1.21
