module example.com/manyruns

go 1.21
