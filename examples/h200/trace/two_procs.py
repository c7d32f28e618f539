# Two worker processes (torch.multiprocessing spawn), each with its own
# kernels: each must be traced into its own file.
import torch, torch.multiprocessing as mp

def work(rank):
    a = torch.randn(1024 * (rank + 1), 1024, device="cuda")
    for _ in range(5):
        a = torch.tanh(a @ a.T[:, :1024] / 1024)
    torch.cuda.synchronize()
    print("worker", rank, float(a.sum()))

if __name__ == "__main__":
    mp.spawn(work, nprocs=2)
