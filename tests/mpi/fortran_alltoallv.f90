! MPI_ALLTOALLV (uneven counts, some messages of 400 kB), MPI_ALLTOALL and MPI_ALLTOALL with
! MPI_IN_PLACE from Fortran, through the binding the preprocessor selects: HR_MPIF_H (include
! 'mpif.h'), HR_F08 (use mpi_f08), else `use mpi` (built three times, with -cpp). MPICH's
! Fortran bindings call the C MPI_Alltoallv / MPI_Alltoall, which hrelay intercepts; Open MPI's
! call PMPI_ directly, and hrelay exports their Fortran symbols instead (src/shim/
! fortran_ompi.c). Either way a preloaded libhrelay.so reschedules all three calls
! (tests/mpi/fortran.sh checks the report). Every received value is checked against the formula
! its sender used; prints "fortran: ok" on success and stops with status 1 otherwise.
program fortran_alltoallv
#if defined(HR_F08)
  use mpi_f08
#elif !defined(HR_MPIF_H)
  use mpi
#endif
  implicit none
#if defined(HR_MPIF_H)
  include 'mpif.h'
#endif
  integer :: ierr, rank, nprocs, i, j, k, total_s, total_r, nbad
  integer, allocatable :: scounts(:), sdispls(:), rcounts(:), rdispls(:)
  integer, allocatable :: sbuf(:), rbuf(:), sa(:), ra(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  allocate(scounts(0:nprocs-1), sdispls(0:nprocs-1), rcounts(0:nprocs-1), rdispls(0:nprocs-1))
  total_s = 0
  total_r = 0
  do j = 0, nprocs - 1
    scounts(j) = count_of(rank, j)
    rcounts(j) = count_of(j, rank)
    sdispls(j) = total_s
    rdispls(j) = total_r
    total_s = total_s + scounts(j)
    total_r = total_r + rcounts(j)
  end do
  allocate(sbuf(max(total_s, 1)), rbuf(max(total_r, 1)))
  do j = 0, nprocs - 1
    do k = 1, scounts(j)
      sbuf(sdispls(j) + k) = value_of(rank, j, k)
    end do
  end do
  rbuf = -1

  nbad = 0
  call MPI_Alltoallv(sbuf, scounts, sdispls, MPI_INTEGER, rbuf, rcounts, rdispls, &
                     MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  do i = 0, nprocs - 1
    do k = 1, rcounts(i)
      if (rbuf(rdispls(i) + k) /= value_of(i, rank, k)) nbad = nbad + 1
    end do
  end do

  allocate(sa(3 * nprocs), ra(3 * nprocs))
  do j = 0, nprocs - 1
    do k = 1, 3
      sa(3 * j + k) = value_of(rank, j, k)
    end do
  end do
  ra = -1
  call MPI_Alltoall(sa, 3, MPI_INTEGER, ra, 3, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  do i = 0, nprocs - 1
    do k = 1, 3
      if (ra(3 * i + k) /= value_of(i, rank, k)) nbad = nbad + 1
    end do
  end do

  ! in place: every rank sends back what it received
  call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INTEGER, ra, 3, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  do j = 0, nprocs - 1
    do k = 1, 3
      if (ra(3 * j + k) /= value_of(rank, j, k)) nbad = nbad + 1
    end do
  end do

  call MPI_Allreduce(MPI_IN_PLACE, nbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (nbad == 0) then
      print '(a,i0,a)', 'fortran: ok on ', nprocs, ' ranks'
    else
      print '(a,i0,a)', 'fortran: FAIL: ', nbad, ' wrong values'
    end if
  end if
  deallocate(scounts, sdispls, rcounts, rdispls, sbuf, rbuf, sa, ra)
  call MPI_Finalize(ierr)
  if (nbad /= 0) stop 1

contains

  ! Elements rank i sends to rank j: 0..6, plus 100000 for about a third of the pairs.
  integer function count_of(i, j)
    integer, intent(in) :: i, j
    count_of = mod(3 * i + 5 * j, 7)
    if (mod(i + 2 * j, 3) == 0) count_of = count_of + 100000
  end function count_of

  ! The k-th value rank i sends to rank j.
  integer function value_of(i, j, k)
    integer, intent(in) :: i, j, k
    value_of = i * 10000000 + j * 100000 + mod(k, 100000)
  end function value_of

end program fortran_alltoallv
