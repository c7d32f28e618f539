# Two worker processes (torch.multiprocessing, spawn), each running its own
# kernels: worker 0 mostly matrix products, worker 1 mostly softmax, and
# both a few of the other's, so each kernel runs most in one process.
import torch, torch.multiprocessing as mp

def work(rank):
    torch.manual_seed(rank)
    a = torch.randn(1024, 1024, device="cuda")
    mm, sm = (20, 2) if rank == 0 else (2, 20)
    for _ in range(mm):
        a = torch.relu(a @ a) / 1024
    for _ in range(sm):
        a = torch.softmax(a, dim=1)
    torch.cuda.synchronize()
    print("worker", rank, float(a.sum()))

if __name__ == "__main__":
    mp.spawn(work, nprocs=2, join=True)
