# Runs until killed: small matmuls, a synchronise every hundred.
import torch

a = torch.randn(512, 512, device="cuda")
i = 0
while True:
    a = torch.tanh(a @ a) 
    i += 1
    if i % 100 == 0:
        torch.cuda.synchronize()
