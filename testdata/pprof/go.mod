module example.com/pprofdemo

go 1.21
